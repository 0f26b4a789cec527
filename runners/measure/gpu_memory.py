"""Process GPU memory sampled through NVML in a background thread (what nvidia-smi would show), over the whole run
and in phases."""

from __future__ import annotations

import os
import threading

SAMPLE_INTERVAL_S = 0.05


class NvmlPeakSampler:
    """Tracks the peak GPU memory NVML attributes to this process.

    ``peak_bytes`` is the whole run's peak, the largest figure nvidia-smi would have shown; ``mark()`` ends a
    phase and returns its peak. Both are None when there is no NVIDIA GPU, or when NVML cannot see this PID
    (common in containers with a private PID namespace): unknown is recorded as null, never as 0.
    """

    def __init__(self, interval_s: float = SAMPLE_INTERVAL_S):
        self.interval_s = interval_s
        self.peak_bytes: int | None = None
        self._phase_peak: int | None = None
        self._lock = threading.Lock()  # the thread's update and mark() read and reset the phase's peak
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._handles: list = []

    def __enter__(self) -> NvmlPeakSampler:
        try:
            import pynvml

            pynvml.nvmlInit()
            self._handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())]
        except Exception:  # no driver or library: not a GPU machine
            return self
        self._thread = threading.Thread(target=self._run, name="nvml-sampler", daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> int | None:
        import pynvml

        pid, total, seen = os.getpid(), 0, False
        for handle in self._handles:
            for proc in pynvml.nvmlDeviceGetComputeRunningProcesses(handle):
                if proc.pid == pid and proc.usedGpuMemory is not None:
                    total, seen = total + proc.usedGpuMemory, True
        return total if seen else None

    def _update(self) -> None:
        try:
            used = self._sample() if self._handles else None
        except Exception:
            used = None
        if used is not None:
            with self._lock:
                self.peak_bytes = max(self.peak_bytes or 0, used)
                self._phase_peak = max(self._phase_peak or 0, used)

    def mark(self) -> int | None:
        """The peak since the previous mark (or the start), sampled up to now; the next phase starts here."""
        self._update()  # memory taken since the thread's last sample counts in the phase that took it
        with self._lock:
            peak, self._phase_peak = self._phase_peak, None
        return peak

    def _run(self) -> None:
        while not self._stop.is_set():
            self._update()
            self._stop.wait(self.interval_s)

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._update()  # memory taken since the thread's last sample counts too (a block shorter than one interval)
            import pynvml

            pynvml.nvmlShutdown()
