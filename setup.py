"""Compiles the per-turn and per-op modules to C with mypyc; everything else stays plain Python.

The modules are listed in pyproject.toml (`[tool.slotstream.compile]`). A machine without a C
compiler gets them as plain Python; SLOTSTREAM_COMPILE=0 skips compiling on purpose. The source
stays the only truth: a compiled module is built from the same file, and the tests run on what
`scripts/setup.sh` built (docs/results.md).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
BUILD = ROOT / "build" / "mypyc"


def _compiled_list() -> Any:
    """slotstream/compiled.py, loaded by its path: nothing is installed yet."""
    spec = importlib.util.spec_from_file_location("slotstream_compiled", ROOT / "slotstream" / "compiled.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compiled_modules() -> list[Any]:
    if os.environ.get("SLOTSTREAM_COMPILE", "1") == "0":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("setup: mypyc is not installed; every module stays plain Python", file=sys.stderr)
        return []
    listing = _compiled_list()
    here = os.getcwd()
    os.chdir(ROOT)  # the module names come from the paths (slotstream/memory/... through its link)
    try:
        extensions = mypycify(
            ["--config-file", str(ROOT / "pyproject.toml"), *listing.compiled_paths(ROOT)],
            group_name="slotstream._native",
            opt_level="3",
            multi_file=True,  # a C file a module, compiled side by side (ParallelBuildExt)
            target_dir=str(BUILD / "c"),
        )
    finally:
        os.chdir(here)
    for extension in extensions:
        extension.include_dirs.append(str(BUILD / "c" / "slotstream"))  # the group's headers
        extension.optional = True  # no C compiler: the plain modules are used
    return extensions


class ParallelBuildExt(build_ext):
    """Compiles an extension's C files on every core (one extension holds all the modules' code)."""

    def build_extensions(self) -> None:
        compile_serially = self.compiler.compile

        def compile_in_parallel(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
            with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
                batches = pool.map(lambda source: compile_serially([source], *args, **kwargs), sources)
                return [obj for batch in batches for obj in batch]

        self.compiler.compile = compile_in_parallel
        super().build_extensions()


setup(ext_modules=compiled_modules(), cmdclass={"build_ext": ParallelBuildExt})
