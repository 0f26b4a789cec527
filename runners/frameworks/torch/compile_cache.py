"""The variables that put PyTorch's compiler caches in its folders of a run's cache directory.

Inductor's caches (its FX graph cache is on by default, ``torch._inductor.config.fx_graph_cache``; setting
``TORCHINDUCTOR_FX_GRAPH_CACHE`` would make the run a tuned one, ``fwbench.tuning``) and Triton's kernels. They are
set whether or not the directory is shared: Inductor writes its caches whether asked or not.
"""

from __future__ import annotations


def variables(folders: tuple[str, ...], persistent: bool) -> dict[str, str]:
    """Its entry's ``compile_cache`` folders as paths, in order; ``persistent`` does not matter (see above)."""
    inductor, triton = folders
    return {"TORCHINDUCTOR_CACHE_DIR": inductor, "TRITON_CACHE_DIR": triton}
