"""The executor boundary: what the matrix hands an executor (jobs) and what comes back (start and end events).

An executor only runs configurations somewhere and hands back their records; resume, storage, progress and the
summary are the matrix's (``runners.matrix.driver``). ``Executor.execute`` takes jobs in and yields a ``Started`` and a
``Finished`` per job, so that one executor may run several at once: ``runners.executors.local.LocalExecutor`` runs
one at a time here, ``runners.executors.ray.RayExecutor`` several on the nodes of a Ray cluster.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from runners.measure.profiles import RunConfig


@dataclass(frozen=True)
class Target:
    """The machines one matrix runs on, as the matrix needs to know them."""

    machine_ids: tuple[str, ...]  # an ok record under any of these counts as done (resume)
    not_installed: dict[str, str] = field(hash=False)  # framework → why it cannot run there
    label: str = "this machine"
    nodes: tuple[str, ...] = ()  # the executor's names of the machines it may use (Ray node ids); () for this one


@dataclass(frozen=True)
class Job:
    """One configuration to run on ``target``, K/N in its matrix's order (``position``)."""

    config: RunConfig
    position: tuple[int, int]
    target: Target


@dataclass(frozen=True)
class Started:
    """A job began ``where`` (a node; "" for this machine)."""

    job: Job
    where: str


@dataclass(frozen=True)
class Finished:
    """A job ended ``where`` after ``seconds`` with its record (its ``executor`` filled in); no record when it could
    not run at all, and ``note`` says why."""

    job: Job
    record: dict | None
    where: str
    seconds: float
    note: str = ""


class Executor(Protocol):
    """Runs configurations somewhere and hands back their records; everything else is the matrix's."""

    name: str

    def execute(self, jobs: Iterable[Job]) -> Iterator[Started | Finished]:
        """Run ``jobs``, taking the next one only when there is room for it, and report each start and each end.
        Closing the iterator early (Ctrl-C) stops what is running, and nothing of it is handed back."""
        ...
