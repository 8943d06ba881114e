"""The modules the install compiles to C with mypyc (setup.py), listed in pyproject.toml under
`[tool.slotstream.compile]`; whether this install's copies are the compiled ones; and the digest of
the sources an install was built from.

Standard library only: setup.py and scripts/setup.sh load this file before anything is installed.
`python slotstream/compiled.py` prints the listed files, one a line; `--digest` prints the digest;
`python -P slotstream/compiled.py --missing` (-P: the installed package, not the sources beside the
file) names the listed modules the install has as plain Python, and fails if there are any.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import sys
import tomllib
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent
# what an install copies from the package folders (scripts/setup.sh reinstalls when it changes)
PACKAGE_SUFFIXES = (".py", ".lua", ".json", ".jsonl", ".toml", ".txt")


def _tool(root: Path) -> dict[str, Any]:
    return cast(dict[str, Any], tomllib.loads((root / "pyproject.toml").read_text())["tool"])


def compiled_paths(root: Path = ROOT) -> list[str]:
    """The listed files, relative to the repository root (`slotstream/memory/reconcile.py`), sorted."""
    config = _tool(root)["slotstream"]["compile"]
    listed = {path.relative_to(root).as_posix() for pattern in config["modules"] for path in root.glob(pattern)}
    return sorted(listed - set(config.get("exclude", [])))


def module_name(path: str) -> str:
    """`slotstream/memory/extraction/text.py` -> `slotstream.memory.extraction.text`."""
    return ".".join(Path(path).with_suffix("").parts)


def missing(root: Path = ROOT) -> list[str]:
    """The listed modules this install imports as plain Python (none after a compiling install)."""
    plain = []
    for path in compiled_paths(root):
        spec = importlib.util.find_spec(module_name(path))
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            plain.append(module_name(path))
    return plain


def package_files(root: Path = ROOT) -> list[Path]:
    """Every file an install takes from the package (through the layer folders' links), sorted."""
    package = root / "slotstream"
    found = [
        path
        for path in package.rglob("*")
        if path.suffix in PACKAGE_SUFFIXES and "__pycache__" not in path.parts and path.is_file()
    ]
    for link in package.iterdir():  # rglob does not descend into the linked layer folders
        if link.is_symlink() and link.is_dir():
            found += [
                link / path.relative_to(link.resolve())
                for path in link.resolve().rglob("*")
                if path.suffix in PACKAGE_SUFFIXES and "__pycache__" not in path.parts and path.is_file()
            ]
    return sorted(set(found))


def source_digest(root: Path = ROOT) -> str:
    """A digest of the build's inputs: the package's files (names and contents), pyproject.toml and
    setup.py. An install records it; the tests refuse to run an install built from other sources."""
    digest = hashlib.sha1()
    for path in [*package_files(root), root / "pyproject.toml", root / "setup.py"]:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


if __name__ == "__main__":
    if sys.argv[1:] == ["--digest"]:
        print(source_digest())
    elif sys.argv[1:] == ["--missing"]:
        plain = missing()
        print("\n".join(plain))
        sys.exit(1 if plain else 0)
    else:
        print("\n".join(compiled_paths()))
