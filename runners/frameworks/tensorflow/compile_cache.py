"""The variables that put TensorFlow's XLA cache in its folder of a run's cache directory.

XLA's persistent cache of the executables it compiles for ``jit_compile=True`` (TF_XLA_FLAGS'
``--tf_xla_persistent_cache_directory``, off by default), only in a shared directory. Its tracing and graph
optimisation run again in every process: what a warm TensorFlow run saves is XLA's compile.
"""

from __future__ import annotations

import os


def variables(folders: tuple[str, ...], persistent: bool) -> dict[str, str]:
    """Its entry's ``compile_cache`` folder as a path; ``persistent``: the directory is shared between runs."""
    if not persistent:
        return {}
    (folder,) = folders
    # after the user's own flags, which a tuned run records; this one changes no compiled code
    flags = filter(None, (os.environ.get("TF_XLA_FLAGS"), "--tf_xla_persistent_cache_directory=" + folder))
    return {"TF_XLA_FLAGS": " ".join(flags)}
