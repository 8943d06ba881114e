#!/usr/bin/env bash
# Set up (first run) and run the whole test suite against real servers started by the fixtures.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
