#!/usr/bin/env bash
# Set up (first run) and run the main job on embedded local defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PYTHONSAFEPATH=1  # the installed package, never the sources beside the current folder
exec .venv/bin/slotstream run "$@"
