"""The package layout holds: one import root in the wheel, and layers that import only downward.

Layers (lowest first): the domain (`slotstream.memory`) imports nothing of ours and no I/O
library; the state layer (`slotstream.state`) imports the domain and Redis, never Kafka; the
Kafka layer (`slotstream.streams`) imports the domain's wire schemas and Kafka, never Redis; the
processors import those three; everything else in `slotstream` (command, settings, worker
wiring, local servers, scenarios, evaluation, benchmarks) sits on top.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LAYERS = {  # package folder -> (its import name, the slotstream packages it may import; the sidecar sits on top)
    "memory": ("slotstream.memory", set()),
    "state": ("slotstream.state", {"slotstream.memory"}),
    "streams": ("slotstream.streams", {"slotstream.memory"}),
    "processors": ("slotstream.processors", {"slotstream.memory", "slotstream.state", "slotstream.streams"}),
}
FORBIDDEN_LIBRARIES = {
    "memory": {"redis", "kafka", "aiokafka", "faust", "httpx", "urllib", "socket", "subprocess"},
    "state": {"kafka", "aiokafka", "faust"},
    "streams": {"redis"},
}
LAYER_PACKAGES = {name for name, _ in LAYERS.values()}


def imports_of(path: Path, package: str) -> set[str]:
    """Absolute module names a file imports (relative imports resolved against its package)."""
    tree = ast.parse(path.read_text(), str(path))
    parts = [*package.split("."), *path.relative_to(ROOT / path.relative_to(ROOT).parts[0]).with_suffix("").parts]
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


def files_of(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("folder", sorted(LAYERS))
def test_each_layer_imports_only_downward(folder: str) -> None:
    package, allowed = LAYERS[folder]
    problems = []
    for path in files_of(folder):
        for name in imports_of(path, package):
            top = name.split(".")[0]
            if top in ("memory", "state", "streams", "processors"):
                problems.append(f"{path.relative_to(ROOT)}: `{name}` (the layers install under slotstream)")
            if name.startswith("slotstream"):
                owner = next((p for p in LAYER_PACKAGES if name == p or name.startswith(p + ".")), "slotstream")
                if owner != package and owner not in allowed:
                    problems.append(f"{path.relative_to(ROOT)}: imports {name}")
            if top in FORBIDDEN_LIBRARIES.get(folder, set()):
                problems.append(f"{path.relative_to(ROOT)}: imports {name} ({folder} must not do I/O of that kind)")
    assert not problems, "\n".join(problems)


def test_the_import_check_sees_a_violation(tmp_path: Path) -> None:
    """The check above can fail: a domain file importing the state layer is caught."""
    fake = ROOT / "memory" / "_layer_probe_tmp.py"
    fake.write_text("from slotstream.state.engine import Engine\nfrom ..state import keys\n")
    try:
        names = imports_of(fake, "slotstream.memory")
    finally:
        fake.unlink()
    assert "slotstream.state.engine" in names and "slotstream.state" in names


def _wheel_names(tmp_path: Path, compile: bool) -> list[str]:
    """The files of a wheel built from a copy of the checkout (the build leaves its build/ folder
    there), after checking its only top-level name is `slotstream`."""
    src = tmp_path / "src"
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(
            ".venv", ".cache", ".git", "var", "build", "tests", "__pycache__", "*.egg-info", "*.so"
        ),
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(src),
        ],
        check=True,
        capture_output=True,
        timeout=900,
        env={**os.environ, "SLOTSTREAM_COMPILE": "1" if compile else "0"},
    )
    (wheel,) = tmp_path.glob("slotstream-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"slotstream"}, tops
    return names


def test_the_wheel_has_one_import_root_and_the_lua_scripts(tmp_path: Path) -> None:
    # a plain build's layout (the compiled build is the long suite's, below: minutes of C)
    names = _wheel_names(tmp_path, compile=False)
    assert {"slotstream/state/apply.lua", "slotstream/state/load.lua"} <= set(names)
    for layer, package in (
        ("memory", "memory"),
        ("state", "state"),
        ("streams", "streams"),
        ("processors", "processors"),
        ("sidecar", "sidecar"),
        ("slotstream", ""),
    ):
        for path in (ROOT / layer).rglob("*.py"):
            inside = "/".join(filter(None, ["slotstream", package, *path.relative_to(ROOT / layer).parts]))
            assert inside in names, f"{path.relative_to(ROOT)} is not in the wheel"


def test_the_listed_hot_modules_run_compiled() -> None:
    from slotstream import compiled

    listed = [compiled.module_name(path) for path in compiled.compiled_paths()]
    assert {
        "slotstream.memory.reconcile",
        "slotstream.memory.extraction.extractor",
        "slotstream.memory.secret_spans",
    } <= set(listed)
    # pydantic models and an unbounded walk of a producer's value stay interpreted (pyproject.toml)
    assert not {"slotstream.memory.extraction.model", "slotstream.memory.secrets"} & set(listed)
    # all or none: scripts/setup.sh compiles them all, or none where asked to or with no C compiler
    if os.environ.get("SLOTSTREAM_COMPILE", "1") == "0" or not (shutil.which("cc") or shutil.which("gcc")):
        assert compiled.missing() == listed
    else:
        assert compiled.missing() == []


@pytest.mark.long
def test_the_compiled_wheel_has_one_import_root_and_every_listed_module_compiled(tmp_path: Path) -> None:
    from slotstream import compiled

    names = _wheel_names(tmp_path, compile=True)
    built = {n.split(".cpython-")[0].replace("/", ".") for n in names if n.endswith(".so")}
    listed = {compiled.module_name(path) for path in compiled.compiled_paths()}
    assert built == listed | {"slotstream._native__mypyc"}, built ^ (listed | {"slotstream._native__mypyc"})
