"""Where each framework keeps compiled code between runs, and whether a run finds it warm (``timing.compile_cache``).

Without ``runners run --compile-cache DIR`` every run gets a fresh temporary directory: its compile time is a cold
one. With it, the runs that share DIR share their compiled code, and a run that finds its framework's entries
there already compiles warm:

- PyTorch: Inductor's caches (its FX graph cache is on by default, ``torch._inductor.config.fx_graph_cache``;
  setting ``TORCHINDUCTOR_FX_GRAPH_CACHE`` would make the run a tuned one, ``fwbench.tuning``) and Triton's kernels,
  under DIR/inductor and DIR/triton. They are always set: Inductor writes its caches whether asked or not.
- JAX: its persistent compilation cache, off by default, turned on under DIR/jax for every computation however
  small or quick to compile (both thresholds 0). Only with the flag: a cold run compiles as JAX does out of the box.
- TensorFlow: XLA keeps no compiled code between processes (a persistent cache is not applicable), so a
  TensorFlow run is always cold.
"""

from __future__ import annotations

import os
from pathlib import Path

#: framework -> its cache folders under the compile-cache directory (none: it keeps no compiled code)
FOLDERS = {"torch": ("inductor", "triton"), "jax": ("jax",), "tensorflow": ()}


def cache_environment(directory: str, persistent: bool) -> dict[str, str]:
    """The variables that put the frameworks' compiler caches in ``directory``, set before a framework is
    imported; ``persistent`` (``--compile-cache`` given) turns on the caches a framework keeps off by default."""
    env = {
        "TORCHINDUCTOR_CACHE_DIR": os.path.join(directory, "inductor"),
        "TRITON_CACHE_DIR": os.path.join(directory, "triton"),
    }
    if persistent:
        env.update(
            JAX_COMPILATION_CACHE_DIR=os.path.join(directory, "jax"),
            JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
            JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="0",
        )
    return env


def cache_state(framework: str, directory: str) -> str:
    """``warm`` when ``directory`` holds a file in one of ``framework``'s cache folders (read before the run
    starts), else ``cold``."""
    folders = (Path(directory) / name for name in FOLDERS.get(framework, ()))
    held = any(path.is_file() for folder in folders for path in folder.rglob("*"))
    return "warm" if held else "cold"
