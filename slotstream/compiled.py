"""The modules the install compiles to C with mypyc (setup.py), listed in pyproject.toml under
`[tool.slotstream.compile]`, and whether this install's copies are the compiled ones.

Standard library only: setup.py and scripts/setup.sh load this file before anything is installed.
`python slotstream/compiled.py` prints the listed files, one a line.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import tomllib
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent


def _tool(root: Path) -> dict[str, Any]:
    return cast(dict[str, Any], tomllib.loads((root / "pyproject.toml").read_text())["tool"])


def package_of_folder(root: Path = ROOT) -> dict[str, str]:
    """Where each layer folder installs (pyproject's package-dir): `memory` -> `slotstream.memory`."""
    return {folder: package for package, folder in _tool(root)["setuptools"]["package-dir"].items()}


def compiled_paths(root: Path = ROOT) -> list[str]:
    """The listed files, relative to the repository root, sorted."""
    config = _tool(root)["slotstream"]["compile"]
    listed = {str(path.relative_to(root)) for pattern in config["modules"] for path in root.glob(pattern)}
    return sorted(listed - set(config.get("exclude", [])))


def module_name(path: str, root: Path = ROOT) -> str:
    """`memory/extraction/text.py` -> `slotstream.memory.extraction.text`."""
    folder, *rest = Path(path).with_suffix("").parts
    return ".".join([package_of_folder(root)[folder], *rest])


def missing(root: Path = ROOT) -> list[str]:
    """The listed modules this install imports as plain Python (none after a compiling install)."""
    plain = []
    for path in compiled_paths(root):
        spec = importlib.util.find_spec(module_name(path, root))
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            plain.append(module_name(path, root))
    return plain


if __name__ == "__main__":
    print("\n".join(compiled_paths()))
