"""The matrix on a Ray cluster: each configuration one Ray task on a node, several at once, records per machine.

A task runs its configuration exactly as the local executor does — ``LocalExecutor.run`` on the node: ``python -m
runners.cli run --config-json …`` in a process group of its own, with the reaper and the parent-death signal, in the
node's interpreter for the framework (``--python``, else the node's ``$FWBENCH_PYTHON_<FRAMEWORK>``, else the one Ray
runs there) — and returns the record; the matrix stores it under the machine id the record carries. The task gets
the configuration as its JSON (``RunConfig.to_json``), the form in which every configuration reaches its process.
Which nodes run what is ``runners.executors.ray_cluster``'s plan; the driver gives a node at most one configuration per
slot and pins the task there.

Faults: a configuration that fails in its process is a record, as it is locally, and is not retried. A task whose
node is lost (or whose Ray worker dies) is tried once more on another node of its matrix; when that fails too, or no
other node is left, its record is an ``error`` of type ``NodeLost`` under the lost node's machine id. Ray's memory
monitor killing a task makes an ``oom`` record. Closing the executor (Ctrl-C) cancels every task: the run's processes
die with their Ray worker (the reaper), and nothing is handed back.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import ClassVar

from fwbench.timestamps import utc_now
from runners.executors.boundary import Finished, Job, Started
from runners.executors.local import LocalExecutor
from runners.executors.ray_cluster import Node, brief, node_environment, pinned
from runners.measure.profiles import RunConfig
from runners.measure.record import failed_record, run_order


def run_configuration(local: LocalExecutor, config_json: str, position: tuple[int, int]) -> dict:
    """A Ray task: run the configuration ``config_json`` holds (``RunConfig.to_json``) on this node as the local
    executor does (a repeat with the node's compile caches of it), in the node's environment; return its record."""
    with node_environment():
        return local.run(RunConfig.from_json(config_json), position)


@dataclass
class Attempt:
    """A job's try on a node."""

    job: Job
    number: int = 1
    avoid: frozenset[str] = frozenset()  # node ids the job must not go to (where its first try was lost)
    node: Node | None = None
    started_at: str = ""
    started: float = 0.0


class RayExecutor:
    """Runs jobs as Ray tasks on the nodes of their targets, as many at once as the nodes have slots."""

    name: ClassVar[str] = "ray"

    def __init__(self, local: LocalExecutor, nodes: list[Node]):
        self.local = local  # what each task runs on its node: interpreters, timeout, data directory, dry run
        self.nodes = {node.id: node for node in nodes}
        self.lost: set[str] = set()

    def execute(self, jobs: Iterable[Job]) -> Iterator[Started | Finished]:
        """Run ``jobs`` on the cluster: each waits for a free slot on a node of its target; reports as they start
        and end, in whatever order they end."""
        import ray

        task = ray.remote(max_retries=0)(run_configuration)  # retried here, on another node, and only when lost
        waiting = deque(Attempt(job) for job in jobs)
        running: dict[ray.ObjectRef, Attempt] = {}
        busy: Counter[str] = Counter()
        try:
            while waiting or running:
                for attempt in self._place(waiting, busy):
                    pinned_task = task.options(**attempt.node.resources, scheduling_strategy=pinned(attempt.node.id))
                    job = attempt.job
                    running[pinned_task.remote(self.local, job.config.to_json(), job.position)] = attempt
                    yield Started(attempt.job, attempt.node.where)
                for attempt in [a for a in waiting if not self._candidates(a)]:
                    waiting.remove(attempt)
                    yield Finished(attempt.job, None, "", 0.0, f"no node of {attempt.job.target.label} is left")
                if running:
                    (ref,), _ = ray.wait(list(running), num_returns=1)
                    attempt = running.pop(ref)
                    busy[attempt.node.id] -= 1
                    finished = self._outcome(ref, attempt, waiting)
                    if finished:
                        yield finished
        finally:
            for ref in running:
                ray.cancel(ref, force=True)

    def _candidates(self, attempt: Attempt) -> list[Node]:
        """The nodes ``attempt`` may still go to."""
        return [self.nodes[i] for i in attempt.job.target.nodes if i not in self.lost and i not in attempt.avoid]

    def _place(self, waiting: deque[Attempt], busy: Counter[str]) -> list[Attempt]:
        """Take from ``waiting``, in order, every attempt that has a free slot now, on its least busy node."""
        placed = []
        for attempt in list(waiting):
            free = [n for n in self._candidates(attempt) if busy[n.id] < n.slots]
            if free:
                node = min(free, key=lambda n: busy[n.id])
                busy[node.id] += 1
                waiting.remove(attempt)
                attempt.node, attempt.started_at, attempt.started = node, utc_now(), time.monotonic()
                placed.append(attempt)
        return placed

    def _outcome(self, ref, attempt: Attempt, waiting: deque[Attempt]) -> Finished | None:
        """The end of ``attempt``: its record; or, when its node was lost on the first try and another node is
        left, None and the job back in front of ``waiting`` for a second try."""
        import ray
        from ray.exceptions import NodeDiedError, OutOfMemoryError, RayError, RayTaskError

        node = attempt.node
        try:
            record = ray.get(ref)
        except OutOfMemoryError as exc:
            record = self._failed(
                attempt, "oom", type(exc).__name__, f"Ray's memory monitor killed the run: {exc}"[:2000]
            )
        except RayTaskError as exc:  # the task itself raised: a failure of this configuration, not of the node
            cause = exc.cause or exc
            record = self._failed(
                attempt, "error", type(cause).__name__, f"the Ray task failed: {cause}"[:2000], stderr_tail=str(exc)
            )
        except RayError as exc:
            if isinstance(exc, NodeDiedError) or not any(n["NodeID"] == node.id and n["Alive"] for n in ray.nodes()):
                self.lost.add(node.id)
            retry = replace(attempt, number=2, avoid=frozenset({node.id}), node=None)
            if attempt.number == 1 and self._candidates(retry):
                waiting.appendleft(retry)
                return None
            why = "second try" if attempt.number > 1 else f"no other node of {attempt.job.target.label} to try"
            record = self._failed(
                attempt,
                "error",
                "NodeLost",
                f"node lost: {node.where} was lost mid-configuration ({why}): {brief(exc)}",
            )
        executor = {"name": self.name, "node": node.address, "node_id": node.id, "attempt": attempt.number}
        return Finished(attempt.job, {**record, "executor": executor}, node.where, time.monotonic() - attempt.started)

    @staticmethod
    def _failed(
        attempt: Attempt, status: str, exception_type: str, message: str, stderr_tail: str | None = None
    ) -> dict:
        """The record of a configuration that Ray, not its process, ended: on the node's hardware."""
        job = attempt.job
        return failed_record(
            job.config,
            attempt.node.survey.hardware,
            attempt.started_at,
            status,
            exception_type,
            message,
            stderr_tail,
            run_order=run_order(*job.position),
        )
