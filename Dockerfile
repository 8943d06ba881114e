# The slotstream application image: the `slotstream` command (workers, the sidecar, topic creation,
# the demo).
# Kafka and Redis run in their own containers (docker-compose.yml), so no JDK and no Redis here.
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
# What the build needs: the project metadata (README.md is its `readme`) and the packages.
COPY pyproject.toml README.md ./
COPY memory ./memory
COPY state ./state
COPY streams ./streams
COPY processors ./processors
COPY sidecar ./sidecar
COPY slotstream ./slotstream
RUN pip install . \
    && useradd --create-home --home-dir /home/slotstream --uid 10001 slotstream \
    && mkdir -p /var/lib/slotstream/keys /var/lib/slotstream/secrets \
    && chown -R slotstream:slotstream /var/lib/slotstream

# The sidecar's keys folder and the master key's folder are created here so the named volumes
# mounted on them start owned by the app user.
WORKDIR /var/lib/slotstream
USER slotstream

ENTRYPOINT ["slotstream"]
CMD ["worker"]
