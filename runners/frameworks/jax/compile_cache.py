"""The variables that put JAX's persistent compilation cache in its folder of a run's cache directory.

The cache is off by default; a shared directory turns it on for every computation however small or quick to
compile (both thresholds 0). Only then: a cold run turns it off even where the environment names a cache
(``JAX_COMPILATION_CACHE_DIR``, as many TPU set-ups do), so that it compiles as JAX does out of the box and never
from compiled code its record calls cold.
"""

from __future__ import annotations


def variables(folders: tuple[str, ...], persistent: bool) -> dict[str, str]:
    """Its entry's ``compile_cache`` folder as a path; ``persistent``: the directory is shared between runs."""
    if not persistent:
        return {"JAX_ENABLE_COMPILATION_CACHE": "false"}
    (folder,) = folders
    return {
        "JAX_ENABLE_COMPILATION_CACHE": "true",
        "JAX_COMPILATION_CACHE_DIR": folder,
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
    }
