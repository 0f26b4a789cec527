"""Sittings: the stretches of a machine's runs made together, the unit that replicates a verdict (``fwbench.decision``).

A machine's speed, and the gap between two frameworks on it, moves between sittings under one fingerprint (on these
2-core VMs a whole session ran a third slower than the one before it; one framework's speed halved after a kernel
update), which no interval from one sitting can show. A sitting is a stretch of runs, taken by start, in which each run
starts less than ``SITTING_GAP`` after the latest finish before it, on one boot of one kernel build: a run whose
``hardware.boot_id`` or kernel build (``hardware.fingerprint.kernel``) differs from the run before it starts a new
sitting, where both records say (older records lack the boot).

Shared by the site and the matrix through ``fwbench.pairing``, so both pair the same rounds. A matrix that starts
after the latest sitting is over (``latest_over``) makes a new one: its comparisons start empty there.

A sitting replicates another only on another boot or another machine (``distinct_boots``): two sittings that a pause
alone parted share whatever that boot set up (its kernel's state, its memory's layout, a neighbour on the host), and
they are stated as such, never counted as a replication.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

#: a pause between runs this long or longer starts a new sitting (a matrix's runs follow each other within seconds,
#: and a repeat round comes back to a configuration within minutes)
SITTING_GAP_HOURS = 1
SITTING_GAP = timedelta(hours=SITTING_GAP_HOURS)


def sittings(competitors: Sequence[Sequence[dict]]) -> list[list[tuple[int, int]]]:
    """The sittings of ``competitors``' run records (each competitor's runs at one batch size, mode and precision),
    in time order: each a list of (the competitor's position, the run's position in its runs)."""
    timed = sorted(
        (datetime.fromisoformat(record["started_at"]), datetime.fromisoformat(record["finished_at"]), side, index)
        for side, runs in enumerate(competitors)
        for index, record in enumerate(runs)
    )
    found: list[list[tuple[int, int]]] = []
    latest_finish: datetime | None = None
    previous: dict | None = None
    for started, finished, side, index in timed:
        record = competitors[side][index]
        if latest_finish is None or started - latest_finish >= SITTING_GAP or rebooted(previous, record):
            found.append([])
        found[-1].append((side, index))
        latest_finish = finished if latest_finish is None else max(latest_finish, finished)
        previous = record
    return found


def rebooted(before: dict | None, after: dict) -> bool:
    """Whether the machine booted again, or booted another kernel build, between two runs: their records' boot ids or
    kernel builds differ (False where either record lacks the one compared)."""
    if before is None:
        return False
    return any(
        first is not None and second is not None and first != second
        for first, second in zip(_boot(before), _boot(after), strict=True)
    )


def _boot(record: dict) -> tuple[str | None, str | None]:
    """A run's boot id and kernel build, each None where its record does not say."""
    hardware = record.get("hardware") or {}
    return hardware.get("boot_id"), (hardware.get("fingerprint") or {}).get("kernel")


@dataclass(frozen=True)
class Start:
    """A run starting ``at`` on the boot ``boot_id`` of the kernel build ``kernel`` (None: not known, as on another
    machine of a cluster): where a matrix begins."""

    at: datetime
    boot_id: str | None = None
    kernel: str | None = None


def latest_over(runs: Sequence[dict], start: Start) -> bool:
    """Whether the latest sitting of ``runs`` is over for a run starting at ``start``: that run would begin a sitting
    of its own, after all of them (the pause since their latest finish, another boot or kernel build). False without
    runs, and where one of them started after ``start`` (its sitting is the latest, begun already)."""
    stamp = start.at.isoformat()
    starting = {
        "started_at": stamp,
        "finished_at": stamp,
        "hardware": {"boot_id": start.boot_id, "fingerprint": {"kernel": start.kernel}},
    }
    found = sittings([runs, [starting]])
    return len(found) > 1 and found[-1] == [(1, 0)]


@dataclass(frozen=True)
class Boot:
    """The boot a sitting ran on: its machines (one, or a cluster's nodes), its boot id and kernel build, each None
    where no record of the sitting says."""

    machines: tuple[str, ...]
    boot_id: str | None
    kernel: str | None


@dataclass(frozen=True, order=True)
class SittingKey:
    """A sitting as ``fwbench.pairing`` keys its rounds: its place in time order, and the boot it ran on."""

    number: int
    boot: Boot = field(compare=False)


def boot_of(records: Iterable[dict]) -> Boot:
    """The boot of one sitting's run records (``sittings`` never puts two known boots or kernels in one)."""
    records = list(records)
    machines = sorted({(record.get("hardware") or {}).get("machine_id") or "" for record in records})
    boot_ids, kernels = zip(*(_boot(record) for record in records), strict=True) if records else ((), ())
    return Boot(tuple(machines), _known(boot_ids), _known(kernels))


def _known(values: Iterable[str | None]) -> str | None:
    """The first of ``values`` that is known, None where none is."""
    return next((value for value in values if value is not None), None)


def distinct_boots(sittings: Iterable[Hashable]) -> int:
    """How many boots ``sittings`` (``SittingKey``s) ran on, counting only what the records can show: each boot id
    on each machine once; sittings whose boot is not recorded (records from before it was) once per machine and
    kernel build, and not at all where a recorded boot, or any sitting where the kernel is not recorded either,
    shares their machine and kernel (they may have run on that boot). A key that says nothing of its boot (a
    simulation's sitting number) is a boot of its own."""
    known, unknown, own = set(), set(), 0
    for sitting in sittings:
        if not isinstance(sitting, SittingKey):
            own += 1
        elif sitting.boot.boot_id is not None:
            known.add((sitting.boot.machines, sitting.boot.boot_id, sitting.boot.kernel))
        else:
            unknown.add((sitting.boot.machines, sitting.boot.kernel))
    shared = {(machines, kernel) for machines, _boot_id, kernel in known}
    seen = {machines for machines, _boot_id, _kernel in known} | {machines for machines, kernel in unknown if kernel}
    counted = {
        (machines, kernel)
        for machines, kernel in unknown
        if (machines, kernel) not in shared and (kernel is not None or machines not in seen)
    }
    return own + len(known) + len(counted)
