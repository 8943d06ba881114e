#!/usr/bin/env bash
# Set up (first run), check lint, format and types, and run the whole test suite against real
# servers started by the fixtures.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# the installed package, never the sources beside the current folder (python -P, for every child)
export PYTHONSAFEPATH=1
echo "test: ruff check, ruff format --check, mypy" >&2
.venv/bin/ruff check --quiet .
.venv/bin/ruff format --check --quiet .
bash scripts/typecheck.sh >/dev/null
exec .venv/bin/python -m pytest "$@"
