"""Host memory of the run's whole process tree: this process's own peak, and its child processes' (a
framework's compiler workers, e.g. Inductor's g++ jobs) sampled in a background thread."""

from __future__ import annotations

import resource
import sys
import threading

import psutil

#: a sample costs about 1.5 ms of CPU (see children_memory): every 250 ms keeps the sampler near 0.6 % of one core,
#: while compiler workers live for seconds
SAMPLE_INTERVAL_S = 0.25
#: how a child process's memory is counted, best first (psutil's names): PSS shares each page among the processes
#: that map it, so workers forked from the run do not count the pages they share with it (and with each other)
#: once each, as their RSS would; USS counts only pages of their own; RSS is what every system reports
BASES = ("pss", "uss", "rss")
RU_MAXRSS_BYTES = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is bytes on macOS, KiB on Linux


def best_basis(process: psutil.Process) -> str:
    """The first of ``BASES`` that this system reports for ``process`` (PSS on Linux, USS on macOS and Windows;
    RSS where even that is denied)."""
    try:
        info = process.memory_full_info()
    except psutil.Error:
        return "rss"
    return next(basis for basis in BASES if hasattr(info, basis))


def basis_text(basis: str) -> str:
    """What ``memory.host_peak_rss_bytes`` counts when the children are counted by ``basis``, in the record's
    words."""
    return (
        f"this process's peak RSS (getrusage) plus its child processes' summed {basis.upper()} (peak of samples "
        f"every {SAMPLE_INTERVAL_S * 1000:.0f} ms), above the post-import baseline"
    )


def children_memory(process: psutil.Process, basis: str) -> int:
    """Summed memory of ``process``'s live descendants by ``basis`` (one of ``BASES``), in bytes (about 1.5 ms
    with 75 processes on the machine: psutil reads every process's parent)."""
    total = 0
    for child in process.children(recursive=True):
        try:
            info = child.memory_info() if basis == "rss" else child.memory_full_info()
            total += getattr(info, basis)
        except psutil.Error:  # ended between listing and reading
            continue
    return total


class HostPeakSampler:
    """Peak host memory above the baseline taken on entry (call it after the framework's import).

    ``self_peak_bytes`` is exact (the kernel's high-water mark); ``children_peak_bytes`` is the highest sum of
    the descendants' memory by ``basis`` seen by sampling, so a child that lives less than the interval can be
    missed. ``basis_text`` says what the two count, for the record.
    """

    def __init__(self, interval_s: float = SAMPLE_INTERVAL_S):
        self.interval_s = interval_s
        self.self_peak_bytes = 0
        self.children_peak_bytes = 0
        self._process = psutil.Process()
        self.basis = best_basis(self._process)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="host-memory-sampler", daemon=True)

    @property
    def basis_text(self) -> str:
        """The record's ``memory.host_peak_basis``: the basis this sampler actually used."""
        return basis_text(self.basis)

    def __enter__(self) -> HostPeakSampler:
        self._self_baseline = self._process.memory_info().rss
        self._children_baseline = children_memory(self._process, self.basis)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            above_baseline = children_memory(self._process, self.basis) - self._children_baseline
            self.children_peak_bytes = max(self.children_peak_bytes, above_baseline)
            self._stop.wait(self.interval_s)

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * RU_MAXRSS_BYTES
        self.self_peak_bytes = max(0, peak - self._self_baseline)
