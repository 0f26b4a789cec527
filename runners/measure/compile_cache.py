"""Where each framework keeps compiled code between runs, and whether a run finds it warm (``timing.compile_cache``).

Without ``runners run --compile-cache DIR`` every run gets a fresh temporary directory: its compile time is a cold
one. With it, the runs that share DIR share their compiled code, and a run that finds its framework's entries
there already compiles warm. The matrix gives each configuration a directory (``prepare_directory``): its first run
empties it, and its repeats keep what was left there, in a later matrix too, as long as the same code left it.

Each framework's folders are named in its registry entry (``fwbench.framework_entry.Framework.compile_cache``), and
the variables that put its compiler's cache there, in its folder's ``compile_cache`` module
(``runners/frameworks/<name>/compile_cache.py``, which says what a warm run of it saves).
A run's temporary directory is a folder of its cache directory too (``temporary_folder``): Inductor keeps its
precompiled C++ header there, outside its own cache directory.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from fwbench.frameworks import REGISTRY, framework

#: the file in a configuration's cache directory naming the code that filled it (``code_digest``)
FILLED_BY = "filled-by"
#: the folder of a cache directory that is its runs' temporary directory (``temporary_folder``)
TEMPORARY = "tmp"


def cache_environment(directory: str, persistent: bool) -> dict[str, str]:
    """The variables that put every framework's compiler caches in its folders of ``directory``, set before a
    framework is imported; ``persistent`` (``--compile-cache`` given) turns on the caches a framework keeps off by
    default."""
    env: dict[str, str] = {}
    for entry in REGISTRY.values():
        if entry.compile_cache:
            folders = tuple(os.path.join(directory, folder) for folder in entry.compile_cache)
            env.update(importlib.import_module(f"{entry.package}.compile_cache").variables(folders, persistent))
    return env


def cache_state(name: str, directory: str) -> str:
    """``warm`` when ``directory`` holds a file in one of framework ``name``'s cache folders (its registry entry's
    ``compile_cache``, read before the run starts), else ``cold``; ValueError for a framework not registered, whose
    folders nobody knows."""
    folders = (Path(directory) / folder for folder in framework(name).compile_cache)
    held = any(path.is_file() for folder in folders for path in folder.rglob("*"))
    return "warm" if held else "cold"


def code_digest() -> str:
    """A digest of the runners package's code and settings (its ``.py`` and ``.json`` files), which build the graphs
    the caches hold: a cache filled by other code would be found warm by its files and still miss."""
    root = Path(__file__).parents[1]  # the runners package
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def prepare_directory(directory: Path, repeat: bool) -> None:
    """Ready a configuration's cache ``directory`` for its next run: a repeat (``repeat``) keeps what the
    configuration's earlier runs left there when the same code left it (``code_digest``); otherwise, a first run
    or other code, the directory is emptied, so that the run compiles cold and leaves the cache to its repeats."""
    stamp, code = directory / FILLED_BY, code_digest()
    if repeat and stamp.is_file() and stamp.read_text() == code:
        return
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    stamp.write_text(code)


def temporary_directory(directory: str) -> str:
    """``directory``/tmp, created if missing: the temporary directory of what compiles into ``directory``'s caches
    (``temporary_folder`` says why), for a child process's ``TMPDIR`` or this one's."""
    folder = os.path.join(directory, TEMPORARY)
    os.makedirs(folder, exist_ok=True)
    return folder


@contextlib.contextmanager
def temporary_folder(directory: str) -> Iterator[str]:
    """Within the block, ``directory``/tmp (created here) is this process's temporary directory, ``TMPDIR`` and
    ``tempfile``'s; enter it before a framework is imported.

    Inductor builds a precompiled C++ header in the temporary directory, outside its cache directory
    (``torch._inductor.codecache._HEADER_DIR``), whenever a process loads C++ kernels, cached ones too, and finds
    none there: in a fresh temporary directory each warm run built it again (PyTorch 2.14 at batch 32 in bf16 on a
    2-core CPU: compile 11 s instead of 3 s, and 500 MiB of child processes in the memory peak). Here the header
    lasts as long as the configuration's caches: a repeat finds it, and a first run, whose directory was emptied,
    builds it, as on a new machine. The other files the frameworks leave there go with the caches too."""
    folder = temporary_directory(directory)
    before = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"] = tempfile.tempdir = folder
    try:
        yield folder
    finally:
        if before[0] is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before[0]
        tempfile.tempdir = before[1]
