"""The wheel: one import root (`slotstream`), every source file and the Lua scripts in it, and the
hot modules compiled when the build compiles."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from slotstream import compiled

ROOT = Path(__file__).resolve().parents[2]
LAYER_FOLDERS = ("memory", "state", "streams", "processors", "sidecar")


def _wheel_names(tmp_path: Path, compile: bool) -> list[str]:
    """The files of a wheel built from a copy of the checkout (the build leaves its build/ folder
    there), after checking its only top-level name is `slotstream`."""
    src = tmp_path / "src"
    shutil.copytree(
        ROOT,
        src,
        symlinks=True,  # the package's links to the layer folders stay links, as in a clone
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


def test_the_wheel_has_one_import_root_every_source_and_the_lua_scripts(tmp_path: Path) -> None:
    # a plain build's layout (the compiled build is the long suite's, below: minutes of C)
    names = set(_wheel_names(tmp_path, compile=False))
    assert {"slotstream/state/apply.lua", "slotstream/state/load.lua"} <= names
    for path in (ROOT / "slotstream").rglob("*.py"):
        assert path.relative_to(ROOT).as_posix() in names, f"{path.relative_to(ROOT)} is not in the wheel"
    for layer in LAYER_FOLDERS:
        for path in (ROOT / layer).rglob("*.py"):
            assert f"slotstream/{path.relative_to(ROOT).as_posix()}" in names, f"{path} is not in the wheel"
    # the word lists, the family specs, the models' weights and the neighbours table the memory reads
    # at run time
    data = ROOT / "memory" / "data"
    for path in (p for p in data.rglob("*") if p.is_file()):
        assert f"slotstream/memory/data/{path.relative_to(data).as_posix()}" in names, f"{path} is not in the wheel"
    assert any(name.startswith("slotstream/memory/data/families/") for name in names)
    # the memory inspector's templates and assets, served from the package
    inspector = ROOT / "sidecar" / "inspector"
    for folder in ("templates", "static"):
        for path in (p for p in (inspector / folder).iterdir() if p.is_file()):
            assert f"slotstream/sidecar/inspector/{folder}/{path.name}" in names, f"{path} is not in the wheel"


def test_the_listed_hot_modules_run_compiled() -> None:
    listed = [compiled.module_name(path) for path in compiled.compiled_paths(ROOT)]
    assert {
        "slotstream.memory.reconcile",
        "slotstream.memory.extraction.extractor",
        "slotstream.memory.secret_spans",
    } <= set(listed)
    # pydantic models and an unbounded walk of a producer's value stay interpreted (pyproject.toml)
    assert not {"slotstream.memory.extraction.interface", "slotstream.memory.secrets"} & set(listed)
    # all or none: scripts/setup.sh compiles them all, or none where asked to or with no C compiler
    stamp = Path(sys.prefix) / ".slotstream-installed"
    if not stamp.read_text().startswith("compile=1"):
        assert compiled.missing(ROOT) == listed
    else:
        assert compiled.missing(ROOT) == []


def test_the_tests_run_the_installed_build_of_these_sources() -> None:
    """With the compiled build, `slotstream` is imported from the install (built from these very
    sources), never from the plain sources in the checkout."""
    import slotstream

    stamp = (Path(sys.prefix) / ".slotstream-installed").read_text().split()
    assert stamp[-1] == compiled.source_digest(ROOT)
    from_checkout = Path(slotstream.__file__).resolve().is_relative_to(ROOT / "slotstream")
    assert from_checkout == (stamp[0] == "compile=0")


@pytest.mark.long
def test_the_compiled_wheel_has_one_import_root_and_every_listed_module_compiled(tmp_path: Path) -> None:
    names = _wheel_names(tmp_path, compile=True)
    built = {n.split(".cpython-")[0].replace("/", ".") for n in names if n.endswith(".so")}
    listed = {compiled.module_name(path) for path in compiled.compiled_paths(ROOT)}
    assert built == listed | {"slotstream._native__mypyc"}, built ^ (listed | {"slotstream._native__mypyc"})
