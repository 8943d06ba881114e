"""The package layout holds: layers that import only downward.

Layers (lowest first): the domain (`slotstream.memory`) imports nothing of ours and no I/O
library; the state layer (`slotstream.state`) imports the domain and Redis, never Kafka; the
Kafka layer (`slotstream.streams`) imports the domain's wire schemas and Kafka, never Redis; the
settings and the master key (`slotstream.config`) import those three; the processors import the
domain, state and streams; the sidecar those and the settings; the client the domain and the
sidecar's models. Everything else in `slotstream` (the command, the worker's wiring, the local
servers, operations, evaluation, benchmarks) sits on top and may import anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MEMORY, STATE, STREAMS = "slotstream.memory", "slotstream.state", "slotstream.streams"
CONFIG, PROCESSORS, SIDECAR = "slotstream.config", "slotstream.processors", "slotstream.sidecar"
LAYERS = {  # package folder -> (its import name, the slotstream packages it may import)
    "memory": (MEMORY, set()),
    "state": (STATE, {MEMORY}),
    "streams": (STREAMS, {MEMORY}),
    "slotstream/config": (CONFIG, {MEMORY, STATE, STREAMS}),
    "processors": (PROCESSORS, {MEMORY, STATE, STREAMS}),
    "sidecar": (SIDECAR, {MEMORY, STATE, STREAMS, CONFIG}),
    "slotstream/client": ("slotstream.client", {MEMORY, SIDECAR}),
}
FORBIDDEN_LIBRARIES = {
    "memory": {"redis", "kafka", "aiokafka", "faust", "httpx", "urllib", "socket", "subprocess"},
    "state": {"kafka", "aiokafka", "faust"},
    "streams": {"redis"},
}
LAYER_PACKAGES = {name for name, _ in LAYERS.values()}
FOLDER_NAMES = ("memory", "state", "streams", "processors", "sidecar")


def imports_of(path: Path, package: str, folder: Path) -> set[str]:
    """Absolute module names a file imports (relative imports resolved against its package, the
    package `folder` installs as)."""
    tree = ast.parse(path.read_text(), str(path))
    parts = [*package.split("."), *path.relative_to(folder).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    here = parts[:-1] if path.name != "__init__.py" else parts
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                out.add(".".join(base + ([node.module] if node.module else [])))
            elif node.module:
                out.add(node.module)
    return out


def owner_of(name: str) -> str:
    """The layer a module belongs to (`slotstream` for the top)."""
    return next((p for p in LAYER_PACKAGES if name == p or name.startswith(p + ".")), "slotstream")


def problems_of(folder: str) -> list[str]:
    package, allowed = LAYERS[folder]
    problems = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        where = path.relative_to(ROOT)
        for name in imports_of(path, package, ROOT / folder):
            top = name.split(".")[0]
            if top in FOLDER_NAMES:
                problems.append(f"{where}: `{name}` (the layers install under slotstream)")
            if name.startswith("slotstream"):
                owner = owner_of(name)
                if owner != package and owner not in allowed:
                    problems.append(f"{where}: imports {name}")
            if top in FORBIDDEN_LIBRARIES.get(folder, set()):
                problems.append(f"{where}: imports {name} ({folder} must not do I/O of that kind)")
    return problems


@pytest.mark.parametrize("folder", sorted(LAYERS))
def test_each_layer_imports_only_downward(folder: str) -> None:
    problems = problems_of(folder)
    assert not problems, "\n".join(problems)


def test_the_import_check_sees_a_violation() -> None:
    """The check above can fail: a domain file importing the state layer is caught, and the sidecar
    importing the command (above it) is too."""
    fake = ROOT / "memory" / "_layer_probe_tmp.py"
    fake.write_text("from slotstream.state.engine import Engine\nfrom ..state import keys\n")
    upward = ROOT / "sidecar" / "_layer_probe_tmp.py"
    upward.write_text("from slotstream.cli import main\n")
    try:
        names = imports_of(fake, MEMORY, ROOT / "memory")
        assert "slotstream.state.engine" in names and "slotstream.state" in names
        assert any("_layer_probe_tmp.py: imports slotstream.state" in p for p in problems_of("memory"))
        assert any("imports slotstream.cli" in p for p in problems_of("sidecar"))
    finally:
        fake.unlink()
        upward.unlink()


def test_the_package_links_each_layer_folder() -> None:
    """`slotstream/<layer>` is a link to the layer folder at the root: one layout for the package,
    mypy and mypyc."""
    for folder in FOLDER_NAMES:
        link = ROOT / "slotstream" / folder
        assert link.is_symlink() and link.resolve() == (ROOT / folder).resolve(), folder
