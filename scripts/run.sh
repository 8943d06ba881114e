#!/usr/bin/env bash
# Set up (first run) and run the main job on embedded local defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/slotstream run "$@"
