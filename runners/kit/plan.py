"""Which ``runners matrix`` calls the kit makes: on a GPU or CPU the parts of ``PLAN`` (``--profiles``), on a TPU or
with ``--plan`` the plan's entries, and the configurations each call runs, expanded as the matrix expands them."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from fwbench.cliargs import Parser
from runners.matrix.repeats import repeats_of
from runners.matrix_cli import register as register_matrix
from runners.measure.config_flags import chosen_profile, profile_overrides
from runners.measure.profile_loading import load_profiles
from runners.measure.profiles import RunConfig, expand


@dataclass(frozen=True)
class Step:
    """One ``runners matrix`` call of the kit, for its ``part`` (``--profiles``): a profile narrowed by the matrix's
    flags (None: the profile's), each configuration run ``repeats`` times (the runs already made count, so a step
    that repeats an earlier one's configurations makes only their repeats); an ``optional`` step's configurations may
    go unrun when the time is spent."""

    part: str
    profile: str
    batch_sizes: tuple[int, ...] | None = None
    modes: tuple[str, ...] | None = None
    precision: str | None = None
    frameworks: tuple[str, ...] | None = None
    optional: bool = False
    repeats: int = 1


PRECISION_FRAMEWORKS = ("torch", "jax")
#: runs of each configuration that the verdicts part asks for: the verdict rule's n (a verdict needs 3 runs of each)
VERDICT_RUNS = 3
#: the kit's matrix calls in the order they run, each in its part. quick: the two ends of the batch sizes, both modes,
#: at the profile's precision (a GPU: each framework's default; no extra precisions), once each. precisions: bf16 for
#: PyTorch and JAX at batch 256, then at 32 and strict fp32 at 256 (its reference) if time allows. transformer: the
#: GPT's quick-gpt profile, one batch size (64 sequences of 256 tokens on a GPU), PyTorch and JAX. verdicts: quick's
#: configurations again, with warm compile caches, until each has VERDICT_RUNS runs, so that every comparison ends
#: decided (a fixed count, not ``--repeats auto``: PyTorch's eager runs have no rival in their mode, and its
#: compiled-against-eager pay-off needs n = 3 of both); it runs before the optional precisions, which time may drop.
#: smoke: the smoke profile, for the kit's run on a CPU (the tests); on a GPU quick covers the same code paths.
PLAN = (
    Step("quick", "quick", (32, 256), ("compiled", "eager")),
    Step("precisions", "quick", (256,), ("compiled",), "bf16", PRECISION_FRAMEWORKS),
    Step("transformer", "quick-gpt", modes=("compiled",), frameworks=PRECISION_FRAMEWORKS),
    Step("verdicts", "quick", (32, 256), ("compiled", "eager"), optional=True, repeats=VERDICT_RUNS),
    Step("precisions", "quick", (32,), ("compiled",), "bf16", PRECISION_FRAMEWORKS, optional=True),
    Step("precisions", "quick", (256,), ("compiled",), "fp32", PRECISION_FRAMEWORKS, optional=True),
    Step("smoke", "smoke"),
)
PARTS = tuple(dict.fromkeys(step.part for step in PLAN))
DEFAULT_PARTS = tuple(part for part in PARTS if part != "smoke")


def steps_of(part: str) -> tuple[Step, ...]:
    """The matrix calls of one part of the kit, in the order they run."""
    return tuple(step for step in PLAN if step.part == part)


SCALING_BATCHES = steps_of("quick")[0].batch_sizes  # on a GPU, images/s must rise from the first to the second
#: a TPU's default plan (``--plan``): the GPT's quick matrix, then ResNet-18's, for JAX and PyTorch via torchax
TPU_PLAN = "--profile quick-gpt;--profile quick"
#: rounds of each plan entry's matrix unless the entry gives its own ``--repeats``: a sitting decides a pair from three
PLAN_REPEATS = 3
#: a plan entry starts only with this much of the deadline left; else the kit again on the same machine runs it
ENTRY_MIN_S = 60.0


def plan_entries(plan: str) -> list[list[str]]:
    """``--plan``'s matrices in order: each entry's ``runners matrix`` arguments (entries separated by ";")."""
    return [entry.split() for entry in plan.split(";") if entry.strip()]


def entry_command(arguments: list[str], device: str, repeats: int | str, deadline: str, runs: Path) -> list[str]:
    """The ``runners matrix`` call of one plan entry: ``repeats`` rounds unless the entry gives its own ``--repeats``
    (given after, it wins), no run ending past ``deadline``, its records under ``runs``."""
    head = [sys.executable, "-m", "runners.cli", "matrix", "--device", device, "--repeats", str(repeats)]
    return [*head, *arguments, "--deadline", deadline, "--no-progress", "--out", str(runs)]


def matrix_parser() -> argparse.ArgumentParser:
    """A parser of ``runners matrix`` alone, as the ``runners`` parser reads it."""
    parser = Parser(prog="runners")
    register_matrix(parser.add_subparsers(dest="command", required=True))
    return parser


def entry_configs(arguments: list[str], device: str, repeats: int | str, version_of) -> tuple[list[RunConfig], int]:
    """The configurations a plan entry's matrix runs on ``device``, expanded as ``runners matrix`` expands them (same
    record ids), and the rounds its verdicts are judged at (its ``--repeats``, else ``repeats``; auto: the profile's
    cap). The matrix's own parser reads the entry: arguments it would refuse stop the kit before anything runs."""
    args = matrix_parser().parse_args(["matrix", "--device", device, "--repeats", str(repeats), *arguments])
    profile = chosen_profile(args)
    lists = {"frameworks": args.frameworks, "modes": args.modes, "batch_sizes": args.batch_sizes, "seeds": args.seeds}
    configs = expand(profile, version_of=version_of, **lists, **profile_overrides(args))
    return configs, repeats_of(load_profiles()[profile], args.repeats).runs


def step_frameworks(step: Step, present: list[str]) -> list[str]:
    """The frameworks a step runs: those it names that are present (all present when it names none)."""
    return [name for name in present if step.frameworks is None or name in step.frameworks]


def expected_configs(step: Step, frameworks: list[str], device: str, version_of) -> list[RunConfig]:
    """The configurations a step's matrix asks for, as ``runners matrix`` expands them (same record ids): without a
    precision the profile's on the device, without its extra precisions."""
    return expand(
        step.profile,
        version_of=version_of,
        frameworks=frameworks,
        modes=step.modes and list(step.modes),
        batch_sizes=step.batch_sizes and list(step.batch_sizes),
        device=None if device == "auto" else device,
        precision=step.precision,
        extra_precisions=None if step.precision else {},
    )
