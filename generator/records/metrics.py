"""The memory figures a run record may hold, each with its title and what it means, and the one a chart shows."""

from __future__ import annotations

from collections.abc import Iterable

from generator.i18n import N_
from generator.records.aggregate import Summary

#: bytes in a mebibyte: the unit every memory figure is shown in
MIB = 1024 * 1024
#: memory field -> (axis/column title, what it means), English (translated where shown)
MEMORY_METRICS = {
    "allocator_peak_bytes": (
        N_("allocator peak"),
        N_("the most memory the framework's own allocator held in live tensors"),
    ),
    "allocator_reserved_bytes": (
        N_("allocator reserved"),
        N_("what the allocator had reserved from the device (cache included)"),
    ),
    "nvml_process_peak_bytes": (
        N_("NVML process peak"),
        N_(
            "the process's GPU memory as the driver sees it (what nvidia-smi shows), sampled during training with "
            "preallocation off"
        ),
    ),
    "host_peak_rss_bytes": (
        N_("host peak RSS"),
        N_(
            "the peak resident host memory of the run's whole process tree (compiler worker processes such as "
            "Inductor's g++ workers included) above the post-import baseline"
        ),
    ),
    "host_children_peak_rss_bytes": (
        N_("host peak RSS of child processes"),
        N_("the part of the host peak held by the run's child processes (the framework's compiler workers)"),
    ),
}
#: the figure a table's chart (and the Versions page) shows: the first of these that its runs recorded (the article
#: read nvidia-smi; on a CPU only the host peak exists)
CHARTED = ("nvml_process_peak_bytes", "allocator_peak_bytes", "host_peak_rss_bytes")


def metrics_of(summaries: Iterable[Summary]) -> list[str]:
    """The memory fields that at least one of ``summaries`` recorded."""
    summaries = list(summaries)
    return [name for name in MEMORY_METRICS if any(s.memory(name) for s in summaries)]


def charted_metric(summaries: Iterable[Summary]) -> str | None:
    """The memory figure to show for ``summaries``: the first of CHARTED that they recorded, or None."""
    names = metrics_of(summaries)
    return next((name for name in CHARTED if name in names), None)
