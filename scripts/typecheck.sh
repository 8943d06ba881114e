#!/usr/bin/env bash
# mypy over the package as it installs: the layer folders at the repository root are mapped under
# `slotstream` (pyproject's package-dir), which mypy cannot follow through an editable install, so
# a tree of links in .cache/typecheck gives it the installed layout.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=.cache/typecheck/slotstream
rm -rf .cache/typecheck
mkdir -p "$tree"
for f in slotstream/*.py; do ln -s "$PWD/$f" "$tree/"; done
for layer in memory state streams processors sidecar; do ln -s "$PWD/$layer" "$tree/$layer"; done
exec .venv/bin/mypy "$tree"
