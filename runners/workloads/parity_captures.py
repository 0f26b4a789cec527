"""Parity captures, each framework's in a fresh interpreter of its own: what one capture is (``Capture``), the plan of
captures that one framework's process makes in turn, and the arrays they come back as.

A process captures its whole plan (``run_plan``), so that the captures share the framework's import and warm-up (the
ResNet-18 parity tests' plans, alone on the 2-core VM: PyTorch's 13 s in one process against 19 s in three,
TensorFlow's 24 s against 32 s): its precision
and dtype switches are set again by each trainer it builds (``runners.frameworks``), the reference precision's last,
since only those are process-wide for the rest of the process. A workload's parity module names its ``capture``
function and its command line (``python -m MODULE --framework F --plan JSON --out F.npz``), which ``run_plans``
starts, one framework at a time where cores are few.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fwbench.frameworks import TRAINING_MODES, framework
from runners.frameworks.precision import REFERENCE_PRECISION
from runners.measure.provenance import REPO_ROOT

DTYPES = ("float64", "float32")


@dataclass(frozen=True)
class Capture:
    """One capture: the training mode (a framework without it trains in its first), the dtype (float64 isolates the
    frameworks' semantics from float32 rounding), the precision policy, the training steps and samples per step."""

    mode: str
    dtype: str
    precision: str
    steps: int
    batch_size: int

    @property
    def key(self) -> str:
        """The prefix of its arrays' names in a process's ``.npz``."""
        return f"{self.mode}.{self.dtype}.{self.precision}.{self.steps}x{self.batch_size}"


def precision_list(allowed: tuple[str, ...]) -> Callable[[str], tuple[str, ...]]:
    """An argparse ``type``: a comma-separated list of precision policies out of ``allowed``, as a tuple."""

    def parse(text: str) -> tuple[str, ...]:
        policies = tuple(text.split(","))
        unknown = [p for p in policies if p not in allowed]
        if unknown or len(set(policies)) != len(policies):
            raise argparse.ArgumentTypeError(f"{text!r}: distinct policies out of {', '.join(allowed)}")
        return policies

    return parse


def plan_type(precisions: Iterable[str]) -> Callable[[str], tuple[Capture, ...]]:
    """An argparse ``type``: a JSON list of captures (objects with ``Capture``'s fields), with ``precisions`` the
    policies allowed, as a tuple; one line naming the bad field otherwise."""
    allowed = tuple(precisions)

    def parse(text: str) -> tuple[Capture, ...]:
        try:
            plan = tuple(Capture(**fields) for fields in json.loads(text))
        except (json.JSONDecodeError, TypeError) as error:
            raise argparse.ArgumentTypeError(f"not a JSON list of captures ({error})") from None
        for capture in plan:
            for field, value, choices in (
                ("mode", capture.mode, TRAINING_MODES),
                ("dtype", capture.dtype, DTYPES),
                ("precision", capture.precision, allowed),
            ):
                if value not in choices:
                    raise argparse.ArgumentTypeError(f"{field} {value!r}: one of {', '.join(choices)}")
            if capture.steps < 1 or capture.batch_size < 1:
                raise argparse.ArgumentTypeError(f"{capture.key}: steps and batch_size at least 1")
        if len(set(plan)) != len(plan):
            raise argparse.ArgumentTypeError("a capture is planned twice")
        return plan

    return parse


def add_plan_argument(parser: argparse.ArgumentParser, precisions: Iterable[str]) -> None:
    """A parity command line's ``--plan``: the captures its process makes, in place of its single-capture flags."""
    parser.add_argument(
        "--plan",
        type=plan_type(precisions),
        help="a JSON list of captures (mode, dtype, precision, steps, batch_size) made by one process, in place of "
        "the flags above",
    )


def plan_argument(plan: Iterable[Capture]) -> str:
    """A plan as ``--plan`` takes it."""
    return json.dumps([dataclasses.asdict(capture) for capture in plan])


def in_capture_order(plan: Iterable[Capture]) -> list[Capture]:
    """A process's captures in the order it makes them: the reference precision's last, since it alone sets
    process-wide switches (no TF32, the highest matmul precision) that the others must find as installed."""
    return sorted(plan, key=lambda capture: capture.precision == REFERENCE_PRECISION)


def run_plan(capture: Callable[..., dict[str, np.ndarray]], name: str, plan: Iterable[Capture], out: Path) -> None:
    """Make framework ``name``'s captures (``capture(name, mode=…, dtype=…, precision=…, steps=…, batch_size=…)``) in
    ``in_capture_order`` and write them to one ``.npz``, each capture's arrays under its key."""
    modes = framework(name).training_modes
    arrays = {}
    for planned in in_capture_order(plan):
        fields = dataclasses.asdict(planned) | {"mode": planned.mode if planned.mode in modes else modes[0]}
        arrays |= {f"{planned.key}/{key}": value for key, value in capture(name, **fields).items()}
    np.savez(out, **arrays)


#: processes run at once, one per four cores: a capture keeps one to two cores busy, and the test workers beside it
#: need the rest (on 2 cores, with both of `make test`'s workers busy, the three parity test files took 174 s and 331
#: CPU-s with every capture side by side, 160 s and 284 CPU-s one at a time; alone, one at a time is slower)
CAPTURES_AT_ONCE = max(1, (os.cpu_count() or 1) // 4)


def run_plans(
    module: str, plans: dict[str, tuple[Capture, ...]], workdir: Path, pythons: dict[str, str] | None = None
) -> dict[Capture, dict[str, dict[str, np.ndarray]]]:
    """Run each framework's plan in a fresh interpreter (``python -m module``): ``pythons``' for that framework
    (another version's environment, ``runners.envs.versions``), else this one; the arrays by capture, by framework.
    RuntimeError naming the framework and its stderr when one fails, once all have ended."""
    jobs = {}
    for name, plan in plans.items():
        out = workdir / f"{module.rsplit('.', 2)[-2]}-{name}.npz"
        command = [(pythons or {}).get(name, sys.executable), "-m", module, "--framework", name]
        jobs[name] = ([*command, "--plan", plan_argument(plan), "--out", str(out)], out)

    def run(command: list[str]) -> subprocess.CompletedProcess:
        # started in the repository, so that another version's interpreter runs this same code
        return subprocess.run(command, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT)

    with ThreadPoolExecutor(CAPTURES_AT_ONCE) as pool:
        ended = dict(zip(jobs, pool.map(run, (command for command, _ in jobs.values())), strict=True))
    found: dict[Capture, dict[str, dict[str, np.ndarray]]] = {}
    for name, process in ended.items():
        if process.returncode != 0:
            raise RuntimeError(f"{module} capture for {name} failed:\n{process.stderr[-3000:]}")
        with np.load(jobs[name][1]) as arrays:
            for capture in plans[name]:
                prefix = f"{capture.key}/"
                found.setdefault(capture, {})[name] = {
                    key.removeprefix(prefix): value for key, value in arrays.items() if key.startswith(prefix)
                }
    return found
