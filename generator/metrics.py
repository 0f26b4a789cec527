"""The memory figures a run record may hold, each with its title and what it means."""

from __future__ import annotations

#: memory field -> (axis/column title, what it means)
MEMORY_METRICS = {
    "allocator_peak_bytes": (
        "allocator peak",
        "the most memory the framework's own allocator held in live tensors",
    ),
    "allocator_reserved_bytes": (
        "allocator reserved",
        "what the allocator had reserved from the device (cache included)",
    ),
    "nvml_process_peak_bytes": (
        "NVML process peak",
        "the process's GPU memory as the driver sees it (what nvidia-smi shows), sampled during training with "
        "preallocation off",
    ),
    "host_peak_rss_bytes": (
        "host peak RSS",
        "the peak resident host memory of the run's whole process tree (compiler worker processes such as "
        "Inductor's g++ workers included) above the post-import baseline",
    ),
    "host_children_peak_rss_bytes": (
        "host peak RSS of child processes",
        "the part of the host peak held by the run's child processes (the framework's compiler workers)",
    ),
}
