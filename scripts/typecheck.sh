#!/usr/bin/env bash
# mypy over the package as it installs (slotstream/ links to the layer folders).
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/mypy slotstream
