"""The Ray cluster a matrix runs on: the session, which nodes take configurations, each node surveyed, the plan.

Before anything runs, each eligible node is surveyed (``matrix.survey``, a zero-CPU task pinned to it): its machine
id, the frameworks it cannot run, and the profile as it expands there. Nodes of one machine id are one kind; with
``per_kind`` the whole matrix runs once per kind, otherwise once on all of them (``plan_of``). A node takes at most
one configuration per slot — each GPU of a GPU node, or the whole of a CPU node — and each configuration asks Ray for
that slot (``num_gpus=1``, or all of the node's CPUs), so that no other configuration, nor other Ray work, shares a
timed GPU or a timed CPU node. ``runners.executors.ray`` runs the plan.
"""

from __future__ import annotations

import logging
import os
import sys
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from fwbench.cliargs import UsageError
from fwbench.environment import variables
from runners.envs.interpreters import Interpreters
from runners.executors.boundary import Target
from runners.matrix.order import interleaved_order
from runners.matrix.survey import Survey, survey
from runners.measure.profiles import RunConfig

#: the extra that brings Ray (pyproject.toml)
RAY_EXTRA = "fwbench[ray]"
#: set before Ray is imported, makes a Ray instance started here bind to the loopback address, not the machine's
#: network address: Ray's switch for one-machine instances (named after the systems where it is the default)
ONE_MACHINE_ENV = ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
#: the prefix of the Ray resource that names a node's GPU kind (``accelerator_type:H100``)
ACCELERATOR = "accelerator_type:"
#: what Ray sets in a worker's environment for each task, besides the GPU it assigns (``CUDA_VISIBLE_DEVICES``)
RAY_TASK_VARIABLES = ("OMP_NUM_THREADS", "PYTHONBREAKPOINT")
#: a process's environment as it started (Linux), before Ray's changes for a task
STARTING_ENVIRONMENT = Path("/proc/self/environ")


@contextmanager
def ray_session(address: str | None) -> Iterator[None]:
    """Connect to the Ray cluster at ``address`` (``auto``: the one started on this machine; default
    ``$RAY_ADDRESS``), or, with neither, start a Ray instance on this machine for the block; disconnect from the
    cluster, or stop the instance, when the block ends."""
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address is None:
        os.environ.setdefault(*ONE_MACHINE_ENV)
    import ray

    # the runs' output is captured into their records: workers have nothing to tell the driver's terminal, and the
    # matrix says itself where it runs (``cluster_line``)
    ray.init(
        address=address or "local",
        include_dashboard=False if address is None else None,
        log_to_driver=False,
        logging_level=logging.ERROR,
    )
    try:
        yield
    finally:
        ray.shutdown()


@dataclass(frozen=True)
class Node:
    """A node of the cluster that a matrix runs on."""

    id: str
    address: str
    slots: int  # configurations at once: its GPUs for GPU configurations, 1 for CPU ones
    resources: dict = field(hash=False)  # what one configuration asks Ray for there (``.options`` keywords)
    survey: Survey = field(hash=False)

    @property
    def machine_id(self) -> str:
        return self.survey.hardware["machine_id"]

    @property
    def where(self) -> str:
        """How progress lines name it: address, machine kind and the start of its id (nodes may share an address)."""
        return f"{self.address} ({self.machine_id}, node {self.id[:8]})"


def eligible_nodes(nodes: list[dict], device: str, accelerator_type: str | None) -> tuple[list[dict], bool]:
    """The alive nodes (``ray.nodes()`` entries) a matrix on ``device`` runs on, and whether its configurations take
    a GPU there: the GPU nodes (of ``accelerator_type`` when given) unless the device is cpu; with device auto and no
    GPU node, every node with a CPU. UsageError when none fits."""
    alive = [n for n in nodes if n["Alive"]]
    if device == "cpu" and accelerator_type:
        raise UsageError(f"--accelerator-type {accelerator_type}: the configurations run on the CPU (--device cpu)")
    gpu_nodes = [n for n in alive if n["Resources"].get("GPU", 0) >= 1 and device != "cpu"]
    if accelerator_type:
        kinds = {k.removeprefix(ACCELERATOR) for n in gpu_nodes for k in n["Resources"] if k.startswith(ACCELERATOR)}
        gpu_nodes = [n for n in gpu_nodes if ACCELERATOR + accelerator_type in n["Resources"]]
        if not gpu_nodes:
            raise UsageError(
                f"--accelerator-type {accelerator_type}: no node of the cluster has one (its GPU kinds: "
                f"{', '.join(sorted(kinds)) or 'none'})"
            )
    if gpu_nodes:
        return gpu_nodes, True
    if device == "gpu":
        raise UsageError("--device gpu: no node of the cluster has a GPU")
    return [n for n in alive if n["Resources"].get("CPU", 0) >= 1], False


def task_resources(node: dict, on_gpu: bool, accelerator_type: str | None) -> tuple[int, dict]:
    """(slots, Ray resources of one configuration) on ``node``: a GPU configuration takes one GPU (of
    ``accelerator_type`` when given), as many at once as the node has; a CPU configuration takes all of the node's
    CPUs, one at a time."""
    if on_gpu:
        return int(node["Resources"]["GPU"]), {
            "num_gpus": 1,
            **({"accelerator_type": accelerator_type} if accelerator_type else {}),
        }
    return 1, {"num_cpus": node["Resources"]["CPU"]}


@contextmanager
def node_environment(starting: Path = STARTING_ENVIRONMENT) -> Iterator[None]:
    """Within the block, this Ray worker's environment is the node's own, as the worker started with it, plus the
    GPU Ray assigned to the task; Ray's own values come back afterwards, for Ray.

    Ray sets ``OMP_NUM_THREADS`` to the task's CPU count where the node sets none: a run that inherited it would be
    slower, and a tuned run (``fwbench.tuning``), never the out-of-the-box one that a local matrix makes.
    """
    try:
        text = starting.read_bytes().decode(errors="replace")
        started_with = dict(item.split("=", 1) for item in text.split("\0") if "=" in item)
    except OSError:  # no /proc: as if the node set none of them
        started_with = {}
    with variables({name: started_with.get(name) for name in RAY_TASK_VARIABLES}):
        yield


def survey_node(interpreters: Interpreters, profile: str, device: str, selection: dict) -> Survey:
    """A Ray task: ``matrix.survey`` of this node, in its own environment."""
    with node_environment():
        return survey(interpreters, profile, device, selection)


def pinned(node_id: str):
    """Ray's scheduling strategy that runs a task on ``node_id`` or not at all."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id, soft=False)


def survey_cluster(
    interpreters: Interpreters, profile: str, device: str, selection: dict, accelerator_type: str | None = None
) -> list[Node]:
    """The nodes a matrix runs on (``eligible_nodes``), each surveyed on itself, ordered by machine id. A node whose
    survey fails (fwbench not installed there, say) is left out with a line on stderr; UsageError when none is left.
    """
    import ray
    from ray.exceptions import RayError

    candidates, on_gpu = eligible_nodes(ray.nodes(), device, accelerator_type)
    survey_there = ray.remote(num_cpus=0)(survey_node)
    pending = [
        survey_there.options(scheduling_strategy=pinned(n["NodeID"])).remote(interpreters, profile, device, selection)
        for n in candidates
    ]
    nodes = []
    for candidate, survey_ref in zip(candidates, pending, strict=True):
        try:
            found = ray.get(survey_ref)
        except RayError as exc:
            print(
                f"ray: node {candidate['NodeManagerAddress']} ({candidate['NodeID'][:8]}) left out: it could not "
                f"be surveyed: {brief(exc)}",
                file=sys.stderr,
            )
            continue
        nodes.append(
            Node(
                candidate["NodeID"],
                candidate["NodeManagerAddress"],
                *task_resources(candidate, on_gpu, accelerator_type),
                found,
            )
        )
    if not nodes:
        raise UsageError("--executor ray: no node of the cluster could be surveyed (is fwbench installed on them?)")
    return sorted(nodes, key=lambda n: (n.machine_id, n.address, n.id))


def brief(exc: BaseException) -> str:
    """An exception as ``Type: its message's last non-empty line`` (Ray's messages end with the cause)."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[-1].strip() if lines else ''}"


def cluster_line(nodes: list[Node]) -> str:
    """Where the matrix runs, on one line: each node's address and machine kind."""
    return f"ray: {len(nodes)} node(s): " + ", ".join(node.where for node in nodes)


def plan_of(nodes: list[Node], per_kind: bool) -> list[tuple[Target, list[RunConfig]]]:
    """One matrix per machine kind (``per_kind``), or one on every node: each in the order of the profile as it
    expands on the first of its nodes, skipping the frameworks that node cannot run."""
    kinds: dict[str, list[Node]] = defaultdict(list)
    for node in nodes:
        kinds[node.machine_id if per_kind else ""].append(node)
    matrices = []
    for group in kinds.values():
        machine_ids = tuple(dict.fromkeys(n.machine_id for n in group))
        first = group[0].survey
        target = Target(machine_ids, first.not_installed, ", ".join(machine_ids), tuple(n.id for n in group))
        matrices.append((target, interleaved_order(first.configs)))
    return matrices
