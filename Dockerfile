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
    && mkdir -p /var/lib/slotstream/keys \
    && chown -R slotstream:slotstream /var/lib/slotstream

# The Faust worker keeps a small data folder (<app id>-data) in its working directory; the sidecar's
# keys folder is created here so a named volume mounted on it starts owned by the app user.
WORKDIR /var/lib/slotstream
USER slotstream

ENTRYPOINT ["slotstream"]
CMD ["worker"]
