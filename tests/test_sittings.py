"""Sittings (fwbench/sittings.py): a pause of an hour, another boot or another kernel build starts a new one; on run
records made through runners.measure.record; a run starting after the latest is over (latest_over) begins a new one."""

from __future__ import annotations

import sys
from datetime import datetime, timedelta
from pathlib import Path

from fwbench.sittings import Start, latest_over, sittings
from runners.measure.profiles import expand

sys.path.insert(0, str(Path(__file__).resolve().parent / "generator"))
import gen_records  # noqa: E402

TORCH, JAX = (
    config
    for config in expand("smoke", version_of=gen_records.VERSIONS.get, frameworks=["torch", "jax"])
    if config.batch_size == 32
)
START = datetime.fromisoformat("2026-12-01T10:01:00+00:00")


def run_at(config, minutes: int, boot: str | None = None, kernel: str = "6.1.0") -> dict:
    """An ok run of ``config`` finished ``minutes`` after 10:01, on the boot ``boot`` of the kernel build ``kernel``."""
    finished = (START + timedelta(minutes=minutes)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    record = gen_records.as_recorded(config, gen_records.one_epoch(config, 100.0), ["runners"], finished_at=finished)
    record["hardware"]["boot_id"] = boot
    record["hardware"]["fingerprint"]["kernel"] = kernel
    return record


def test_a_pause_of_an_hour_starts_a_new_sitting_and_shorter_ones_chain():
    torch = [run_at(TORCH, 0), run_at(TORCH, 50), run_at(TORCH, 170)]
    jax = [run_at(JAX, 100)]  # started 49 minutes after the run before it finished: the same sitting; the last
    # starts 69 minutes after the latest finish: a new one
    assert sittings([torch, jax]) == [[(0, 0), (0, 1), (1, 0)], [(0, 2)]]


def test_a_new_boot_starts_a_new_sitting_however_short_the_pause():
    torch = [run_at(TORCH, 0, boot="a"), run_at(TORCH, 10, boot="b")]
    jax = [run_at(JAX, 5, boot="a"), run_at(JAX, 15, boot="b")]
    assert sittings([torch, jax]) == [[(0, 0), (1, 0)], [(0, 1), (1, 1)]]


def test_a_record_without_a_boot_id_joins_by_the_pause_alone():
    older = [run_at(TORCH, 0, boot=None), run_at(TORCH, 20, boot="b")]
    jax = [run_at(JAX, 10, boot="a")]
    # a → None says nothing, None → b neither: one sitting, as before boots were recorded
    assert sittings([older, []]) == [[(0, 0), (0, 1)]]
    assert sittings([older, jax]) == [[(0, 0), (1, 0)], [(0, 1)]]  # a → b: the boot changed


def test_another_kernel_build_starts_a_new_sitting():
    torch = [run_at(TORCH, 0, kernel="6.1.0"), run_at(TORCH, 10, kernel="6.8.0")]
    assert sittings([torch]) == [[(0, 0)], [(0, 1)]]


def test_the_latest_sitting_is_over_for_a_run_an_hour_later_or_on_another_boot_or_kernel():
    runs = [run_at(TORCH, 0, boot="a"), run_at(JAX, 10, boot="a")]

    def start(minutes: int, boot: str | None = "a", kernel: str | None = "6.1.0") -> Start:
        """A run starting ``minutes`` after the latest finish."""
        return Start(START + timedelta(minutes=10 + minutes), boot, kernel)

    assert latest_over(runs, start(120)) and not latest_over(runs, start(10))
    assert latest_over(runs, start(10, boot="b")) and latest_over(runs, start(10, kernel="6.8.0"))
    assert not latest_over(runs, start(10, boot=None, kernel=None))  # on a node whose boot is not known: the pause
    assert not latest_over([], start(120))  # no sitting to be over
    # a run started after the start, two hours on: its sitting, begun already, is the latest
    assert not latest_over([*runs, run_at(TORCH, 140, boot="a")], start(120))
