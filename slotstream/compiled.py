"""The modules the install compiles to C with mypyc (setup.py), listed in pyproject.toml under
`[tool.slotstream.compile]`, and whether this install's copies are the compiled ones.

Standard library only: setup.py and scripts/setup.sh load this file before anything is installed.
`python slotstream/compiled.py` prints the listed files, one a line.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# where each layer folder installs (pyproject's package-dir)
PACKAGE_OF_FOLDER = {
    "slotstream": "slotstream",
    "memory": "slotstream.memory",
    "state": "slotstream.state",
    "streams": "slotstream.streams",
    "processors": "slotstream.processors",
    "sidecar": "slotstream.sidecar",
}


def compiled_paths(root: Path = ROOT) -> list[str]:
    """The listed files, relative to the repository root, sorted."""
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["slotstream"]["compile"]
    listed = {str(path.relative_to(root)) for pattern in config["modules"] for path in root.glob(pattern)}
    return sorted(listed - set(config.get("exclude", [])))


def module_name(path: str) -> str:
    """`memory/extraction/text.py` -> `slotstream.memory.extraction.text`."""
    folder, *rest = Path(path).with_suffix("").parts
    return ".".join([PACKAGE_OF_FOLDER[folder], *rest])


def missing(root: Path = ROOT) -> list[str]:
    """The listed modules this install imports as plain Python (none after a compiling install)."""
    plain = []
    for path in compiled_paths(root):
        spec = importlib.util.find_spec(module_name(path))
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            plain.append(module_name(path))
    return plain


if __name__ == "__main__":
    print("\n".join(compiled_paths()))
    sys.exit(0)
