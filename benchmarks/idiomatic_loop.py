"""Each framework's ``Trainer`` step against minimal training loops written as that framework's own examples write
them (``benchmarks/minimal_loops.py``; the GPT's in ``benchmarks/minimal_gpt_loops.py``): is fwbench's step as fast
as the plain loop a user of the framework would write? ``benchmarks/harness_overhead.py`` times the runner around
the same ``Trainer.train_step``.

Without ``--device``, for each precision policy (``--precisions``), framework and mode, two worker processes (so
that neither's threads, allocator or caches disturb the other) each build one loop of ``--workload`` and compile
it; then they take turns (A B, B A, …), each timing ``--steps`` steps between two syncs, and each pair gives a ratio
Trainer ÷ minimal. Prints images/s (tokens/s), the median ratio (and that of the fastest rounds) and every pair's
ratio; exits 1 when a median ratio is below ``--min-ratio`` (0.97). A benchmark, not a test: on a busy machine
single pairs stray far beyond the 3 % margin.

With ``--device`` (cpu, gpu, tpu or auto) it checks the JAX-based frameworks (``--frameworks``: JAX and PyTorch via
torchax) in one process, since a TPU admits one process at a time: for each precision policy (``--precisions``) and
batch size, one framework at a time, every loop of it is built (fwbench's Trainer and each minimal loop: Flax NNX
and Flax linen for JAX; torchax's ``make_train_step`` for torchax), then each round runs every loop once, the order
rotated by one loop each round (a Latin square: every loop holds every position equally often over as many rounds
as loops).
Prints each loop's images/s and MFU (the records' rule: ``runners.measure.mfu.mfu_section``), and each ratio
Trainer ÷ minimal with its 95 % interval over the rounds (``fwbench.decision``'s paired interval); ``--out`` writes
the harness checks as JSON (``fwbench.harness_checks``), which the site reads to know how far each harness may stray.

    python benchmarks/idiomatic_loop.py [--configs torch:eager,torch:compiled,tensorflow:compiled,jax:compiled]
        [--precisions fp32,bf16] [--batch-size 32] [--steps 5] [--pairs 4] [--min-ratio 0.97] [--workload gpt]
    python benchmarks/idiomatic_loop.py --device tpu --precisions bf16,default --batch-sizes 256,1024 --steps 100
        [--profile /tmp/idiomatic-profile]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

# run as `python benchmarks/idiomatic_loop.py`: the repository's packages come first
sys.path[:0] = [str(Path(__file__).resolve().parents[1])]

from fwbench.cliargs import HelpWithExamples, csv_of, positive_float, positive_int  # noqa: E402
from fwbench.decision import decide_sitting  # noqa: E402
from fwbench.frameworks import FRAMEWORKS  # noqa: E402
from fwbench.harness_checks import write_checks  # noqa: E402
from runners.frameworks.precision import PRECISION_POLICIES  # noqa: E402
from runners.measure.mfu import mfu_section  # noqa: E402
from runners.measure.run import framework_environment, run_hardware  # noqa: E402
from runners.workloads import WORKLOADS, Workload, workload  # noqa: E402
from runners.workloads.resnet18 import data  # noqa: E402
from runners.workloads.resnet18.dataset import epoch_batches  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import device_profile  # noqa: E402
import minimal_gpt_loops  # noqa: E402
import minimal_loops  # noqa: E402

#: every (framework, mode) checked by default: the modes the article times
CONFIGS = ("torch:eager", "torch:compiled", "tensorflow:compiled", "jax:compiled")
#: what ``--device`` checks, in one process: the frameworks that run as JAX programs
ONE_PROCESS_FRAMEWORKS = ("jax", "torchax")
#: warm-up steps before the first timed round: the compile, then one step with everything compiled
WARMUP_STEPS = 2
#: distinct batches resident on the device, taken in turn (at batch 256, 16 batches are 50 MB of float32 images)
DEVICE_BATCHES = 16
#: what a worker's result line starts with (frameworks may print to stdout too)
MARK = "@@ "
#: the variant that is fwbench's own step; every other variant of a framework is a reference it is checked against
TRAINER = "trainer"

#: a loop: (images, labels) as NumPy, mode, and where the framework lets it choose, precision policy and device →
#: (step(i) running the i-th batch, sync)
Loop = Callable[..., tuple[Callable[[int], object], Callable[[], object]]]


def trainer_loop(framework: str, name: str = "resnet18") -> Loop:
    """fwbench's own step: ``make_trainer`` and ``Trainer.train_step``, exactly as the runner calls it, for workload
    ``name`` (at the size a GPT loop is given: ``config``)."""

    def build(inputs, targets, mode, precision="fp32", device="auto", config=None):
        from runners.workloads import make_trainer

        spec = at_config(workload(name), config)
        weights = spec.module("arch").init_weights(0, **spec.model_options())
        options = spec.trainer_options(None, precision)
        trainer = make_trainer(name, framework, weights, mode, device, precision=precision, **options)
        batches = trainer.to_device(inputs, targets)
        return (lambda i: trainer.train_step(*batches[i], minimal_loops.LR)), trainer.sync

    return build


def at_config(spec: Workload, config) -> Workload:
    """``spec`` at the named size whose sizes are ``config`` (None: as it is)."""
    if config is None:
        return spec
    named = getattr(spec.module("arch"), spec.sizes)
    return spec.at(next(size for size, sizes in named.items() if sizes == config))


#: workload → framework → variant → loop: fwbench's trainer and the minimal loops it is checked against
LOOPS: dict[str, dict[str, dict[str, Loop]]] = {
    "resnet18": {
        "torch": {TRAINER: trainer_loop("torch"), "minimal": minimal_loops.minimal_torch},
        "tensorflow": {TRAINER: trainer_loop("tensorflow"), "minimal": minimal_loops.minimal_tensorflow},
        "jax": {
            TRAINER: trainer_loop("jax"),
            "minimal": minimal_loops.minimal_jax,
            "linen": minimal_loops.minimal_linen,
        },
        "torchax": {TRAINER: trainer_loop("torchax"), "minimal": minimal_loops.minimal_torchax},
    },
    "gpt": {
        "torch": {TRAINER: trainer_loop("torch", "gpt"), "minimal": minimal_gpt_loops.minimal_torch_gpt},
        "tensorflow": {TRAINER: trainer_loop("tensorflow", "gpt"), "minimal": minimal_gpt_loops.minimal_keras_gpt},
        "jax": {TRAINER: trainer_loop("jax", "gpt"), "minimal": minimal_gpt_loops.minimal_jax_gpt},
        "torchax": {TRAINER: trainer_loop("torchax", "gpt"), "minimal": minimal_gpt_loops.minimal_torchax_gpt},
    },
}
#: how a check names each reference loop
REFERENCES = {
    ("resnet18", "torch", "minimal"): "PyTorch tutorial loop (torch.optim.SGD)",
    ("resnet18", "tensorflow", "minimal"): "Keras training loop from scratch",
    ("resnet18", "jax", "minimal"): "Flax NNX performance-guide loop",
    ("resnet18", "jax", "linen"): "Flax linen ImageNet-example loop",
    ("resnet18", "torchax", "minimal"): "torchax make_train_step loop",
    ("gpt", "torch", "minimal"): "nanoGPT's PyTorch loop (torch.optim.AdamW)",
    ("gpt", "tensorflow", "minimal"): "Keras nanoGPT-shaped loop from scratch",
    ("gpt", "jax", "minimal"): "Flax NNX nanoGPT-shaped loop",
    ("gpt", "torchax", "minimal"): "torchax make_train_step nanoGPT loop",
}
assert all(set(loops) == set(FRAMEWORKS) for loops in LOOPS.values()), "every framework needs its minimal loop"


def batches(spec: Workload, batch_size: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` batches of ``spec``'s inputs and targets as NumPy: synthetic images and labels, or token sequences."""
    if spec.name == "gpt":
        return minimal_gpt_loops.token_batches(spec.arch_config(), batch_size, count)
    dataset = data.synthetic(batch_size * count, batch_size)
    return epoch_batches(dataset.train_images, dataset.train_labels, 0, 0, batch_size)


class Built:
    """One loop of workload ``spec`` built and warmed up in this process (``options``: the JAX-based loops' precision
    and device), timed a round at a time: ``steps`` steps between two syncs, over ``DEVICE_BATCHES`` batches taken in
    turn; a round's rate counts samples (images, or tokens)."""

    def __init__(
        self,
        framework: str,
        mode: str,
        variant: str,
        batch_size: int,
        steps: int,
        spec: Workload = WORKLOADS["resnet18"],
        **options,
    ):
        self.name, self.steps = (framework, variant), steps
        self.batch_size = batch_size * spec.samples_per()
        count = min(steps, DEVICE_BATCHES)
        inputs, targets = batches(spec, batch_size, count)
        sized = {"config": spec.arch_config()} if spec.sizes else {}
        start = time.perf_counter()
        loop = LOOPS[spec.name][framework][variant]
        self.step, self.sync = loop(inputs, targets, mode, **options, **sized)  # imports the framework
        self.count = count
        for i in range(WARMUP_STEPS):
            self.step(i % count)
        self.sync()
        self.setup_seconds = time.perf_counter() - start

    def round(self) -> float:
        """Samples/s (images or tokens) over one round."""
        self.sync()
        start = time.perf_counter()
        for i in range(self.steps):
            self.step(i % self.count)
        self.sync()
        return self.steps * self.batch_size / (time.perf_counter() - start)

    def close(self) -> None:
        """Nothing to end: the loop lives in this process."""


def worker(
    framework: str, mode: str, variant: str, batch_size: int, steps: int, precision: str, spec: Workload
) -> None:
    """Build and compile one loop of workload ``spec`` under ``precision``, then time a round each time a line arrives
    on stdin; one result line (samples/s) per round on stdout, after a first line with the set-up time."""
    os.environ.update(framework_environment("auto", tempfile.mkdtemp(prefix="fwbench-idiomatic-cache-")))
    loop = Built(framework, mode, variant, batch_size, steps, spec, precision=precision)
    print(MARK + json.dumps({"setup_seconds": loop.setup_seconds}), flush=True)
    for _ in sys.stdin:
        print(MARK + json.dumps({"per_second": loop.round()}), flush=True)


class Worker:
    """One worker process of ``script`` and its line protocol (the same methods as ``Built``)."""

    def __init__(
        self,
        script: str,
        framework: str,
        mode: str,
        variant: str,
        batch_size: int,
        steps: int,
        precision: str,
        spec: Workload,
    ):
        command = [sys.executable, script, "--worker", framework, mode, variant, str(batch_size), str(steps), precision]
        command += [spec.name, spec.size or "-"]
        self.name = (framework, variant)
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.setup_seconds = self.result()["setup_seconds"]

    def result(self) -> dict:
        for line in self.process.stdout:
            if line.startswith(MARK):
                return json.loads(line[len(MARK) :])
        raise RuntimeError(f"{self.name} worker exited with {self.process.wait()} (its stderr is above)")

    def round(self) -> float:
        self.process.stdin.write("go\n")
        self.process.stdin.flush()
        return self.result()["per_second"]

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def rotated(loops: list, round_index: int) -> list:
    """The order of ``loops`` in round ``round_index``: rotated by one each round (a Latin square over rounds)."""
    shift = round_index % len(loops)
    return loops[shift:] + loops[:shift]


def interleave(
    make: Callable[[tuple[str, str]], Built | Worker],
    names: list[tuple[str, str]],
    rounds: int,
    profile: Callable[[list[Built]], None] | None = None,
) -> dict:
    """Rounds of every loop named in ``names`` ((framework, variant) pairs), each made by ``make`` one after the
    other (so that their compiles do not overlap) and run once a round in ``rotated`` order: samples/s per loop per
    round and each loop's set-up time. ``profile``, if given, is called with the loops after the rounds."""
    loops = []
    try:
        for name in names:
            loops.append(make(name))
        rates = {loop.name: [] for loop in loops}
        for index in range(rounds):
            for loop in rotated(loops, index):
                rates[loop.name].append(loop.round())
        if profile is not None:
            profile(loops)
    finally:
        for loop in loops:
            loop.close()
    return {"rates": rates, "setup": {loop.name: loop.setup_seconds for loop in loops}}


def one_framework_at_a_time(
    make: Callable[[tuple[str, str]], Built | Worker],
    names: list[tuple[str, str]],
    rounds: int,
    profile: Callable[[list[Built]], None] | None = None,
) -> dict:
    """``interleave`` over each framework's loops in turn, their results merged: a ratio pairs a trainer with its own
    framework's loops only, and one framework's loops are closed and collected before the next one's are built, so
    that a model as large as GPT-2 small need not hold every loop's state at once (all four of its loops built in one
    process did not fit a 15.7 GiB TPU v5e)."""
    merged: dict = {"rates": {}, "setup": {}}
    for framework in dict.fromkeys(name[0] for name in names):
        found = interleave(make, [name for name in names if name[0] == framework], rounds, profile)
        for key in merged:
            merged[key] |= found[key]
        gc.collect()  # the closed loops' arrays, and with them their device memory
    return merged


def ratio_figures(trainer_rates: list[float], reference_rates: list[float]) -> dict:
    """Trainer ÷ reference per round, their median, and the 95 % interval of the rounds' mean ratio (log scale, as
    ``fwbench.decision`` judges rounds; None with fewer than three rounds)."""
    ratios = [a / b for a, b in zip(trainer_rates, reference_rates, strict=True)]
    gap = decide_sitting("this process", ratios).gap
    return {
        "ratios": ratios,
        "ratio": statistics.median(ratios),
        "ratio_interval": None if gap is None else [gap.low, gap.high],
    }


def report(config: str, result: dict) -> str:
    """One line: median images/s of the trainer and the minimal loop, the median ratio, the ratio of the fastest
    rounds (other work only ever slows a round, so on a busy machine it is the steadier figure), every round's ratio,
    the set-up times."""
    trainer, minimal = result["rates"].values()
    ratios = ratio_figures(trainer, minimal)["ratios"]
    pairs = " ".join(f"{r:.3f}" for r in ratios)
    setup = ", ".join(f"{v} {s:.0f} s" for (_, v), s in result["setup"].items())
    return (
        f"{config:<26}{statistics.median(trainer):>9.1f}{statistics.median(minimal):>9.1f}"
        f"{statistics.median(ratios):>7.3f}{max(trainer) / max(minimal):>7.3f}  pairs {pairs}  (set-up {setup})"
    )


def in_workers(args: argparse.Namespace, script: str) -> int:
    """Compare the Trainer with the minimal loop for each configuration under each precision policy asked, each loop
    in a worker process of its own, on the framework's default device; ``--out`` writes the harness checks; 1 if any
    median ratio is below ``--min-ratio``."""
    from runners.measure.harness import harness

    spec = workload(args.workload).at(args.size)
    rounds = f"{args.steps} steps per round, {2 * args.pairs} rounds; {spec.sample}s/s, medians"
    print(f"{spec.model_name} batch {args.batch_size}, {rounds}")
    print(f"{'framework:mode':<26}{'Trainer':>9}{'minimal':>9}{'ratio':>7}{'best':>7}")
    low, found = [], []
    hardware = run_hardware({"device_kind": "cpu"}) if args.out else None
    frameworks = dict.fromkeys(config.split(":")[0] for config in args.configs) if args.out else {}
    digests = {name: harness(spec.trainer_module(name))["digest"] for name in frameworks}
    for precision in args.precisions:
        for config in args.configs:
            framework, mode = config.split(":")
            result = interleave(
                lambda name, m=mode, p=precision: Worker(
                    script, name[0], m, name[1], args.batch_size, args.steps, p, spec
                ),
                [(framework, TRAINER), (framework, "minimal")],
                2 * args.pairs,
            )
            label = config if precision == "fp32" else f"{config} {precision}"
            print(report(label, result), flush=True)
            if statistics.median(ratio_figures(*result["rates"].values())["ratios"]) < args.min_ratio:
                low.append(label)
            if args.out:
                setting = {"precision": precision, "batch_size": args.batch_size, "steps": args.steps, "mode": mode}
                found += checks(setting, result, hardware, {framework: digests[framework]}, spec)
                save_checks(args.out, found)
    if low:
        print(f"below {args.min_ratio}: {', '.join(low)}")
        return 1
    print(f"every median ratio is at least {args.min_ratio}")
    return 0


def checks(
    setting: dict, result: dict, hardware: dict, harnesses: dict[str, str], spec: Workload = WORKLOADS["resnet18"]
) -> list[dict]:
    """The harness checks of one setting (precision, batch size, steps per round) of workload ``spec`` from its
    rounds: for each framework and each of its reference loops, the ratio Trainer ÷ reference with its interval, both
    loops' median samples/s (images or tokens) and MFU on ``hardware`` (the records' rule), every round; ``harnesses``:
    each framework's harness digest (``runners.measure.harness``)."""
    found = []
    rates, setup = result["rates"], result["setup"]
    for (framework, variant), reference_rates in rates.items():
        if variant == TRAINER:
            continue
        trainer_rates = rates[framework, TRAINER]
        medians = {TRAINER: statistics.median(trainer_rates), variant: statistics.median(reference_rates)}
        found.append(
            {
                "framework": framework,
                "mode": setting.get("mode", "compiled"),
                "workload": spec.name,
                **({"size": spec.size} if spec.size else {}),
                "device_kind": hardware["device_kind"],
                "device_name": hardware["device_name"],
                "machine_id": hardware["machine_id"],
                "precision": setting["precision"],
                "batch_size": setting["batch_size"],
                "harness": harnesses[framework],
                "reference": REFERENCES[spec.name, framework, variant],
                **ratio_figures(trainer_rates, reference_rates),
                "pairs": len(trainer_rates),
                "steps_per_round": setting["steps"],
                spec.rate_field: {"trainer": medians[TRAINER], "reference": medians[variant]},
                "mfu": {
                    "trainer": mfu_section(setting["precision"], hardware, medians[TRAINER], spec)["value"],
                    "reference": mfu_section(setting["precision"], hardware, medians[variant], spec)["value"],
                },
                "rounds": {"trainer": trainer_rates, "reference": reference_rates},
                "setup_seconds": {"trainer": setup[framework, TRAINER], "reference": setup[framework, variant]},
            }
        )
    return found


def printed(check: dict) -> str:
    """One check as the line the script prints."""
    unit = WORKLOADS[check["workload"]].sample
    rates, mfu, interval = check[f"{unit}s_per_second"], check["mfu"], check["ratio_interval"]
    mfus = "" if mfu["trainer"] is None else f" (MFU {mfu['trainer']:.3f} vs {mfu['reference']:.3f})"
    within = "" if interval is None else f", 95 % interval {interval[0]:.3f}–{interval[1]:.3f}"
    return (
        f"{check['framework']} {check['workload']} {check['precision']} batch {check['batch_size']}: "
        f"trainer {rates['trainer']:.1f} vs "
        f"{check['reference']} {rates['reference']:.1f} {unit}s/s{mfus}; ratio {check['ratio']:.3f}{within} over "
        f"{check['pairs']} rounds"
    )


def in_one_process(args: argparse.Namespace) -> int:
    """The JAX-based frameworks' Trainers of ``--workload`` (at ``--size``) against their minimal loops in this
    process, on ``--device``, for every precision and batch size asked; 1 if any median ratio is below
    ``--min-ratio``."""
    from runners.frameworks.jax.resnet18 import device_description, training_device
    from runners.measure.harness import harness

    os.environ.update(framework_environment(args.device, tempfile.mkdtemp(prefix="fwbench-idiomatic-cache-")))
    spec = workload(args.workload).at(args.size)
    names = [(f, variant) for f in args.frameworks for variant in LOOPS[spec.name][f]]
    harnesses = {f: harness(spec.trainer_module(f))["digest"] for f in args.frameworks}
    found = []
    for precision in args.precisions:
        for batch_size in args.batch_sizes:
            options = {"precision": precision, "device": args.device}
            profiled = None if args.profile is None else args.profile / f"{spec.name}-{precision}-{batch_size}"
            result = one_framework_at_a_time(
                lambda name, b=batch_size, o=options: Built(*name[:1], "compiled", name[1], b, args.steps, spec, **o),
                names,
                args.rounds,
                profile=None if profiled is None else lambda loops, d=profiled: print_profiles(loops, d),
            )
            hardware = run_hardware(device_description(training_device(args.device, precision, np.dtype("float32"))))
            setting = {"precision": precision, "batch_size": batch_size, "steps": args.steps}
            for check in checks(setting, result, hardware, harnesses, spec):
                print(printed(check), flush=True)
                found.append(check)
            if args.out:  # after each setting, so that a run stopped early keeps what it measured
                save_checks(args.out, found)
    low = [c for c in found if c["ratio"] < args.min_ratio]
    for check in low:
        print(
            f"below {args.min_ratio}: {check['framework']} {check['workload']} {check['precision']} batch "
            f"{check['batch_size']} "
            f"against the {check['reference']}"
        )
    return int(bool(low))


def print_profiles(loops: list[Built], directory: Path) -> None:
    """One more round of each loop under JAX's profiler (its trace below ``directory``): each loop's device time
    a step by op category, and where fwbench's trainer spends more than each reference (``device_profile``)."""
    found = {}
    for loop in loops:
        label = "-".join(loop.name)
        found[loop.name] = device_profile.device_time(device_profile.traced(directory / label, loop.round))
        print(device_profile.report(f"profile {label}", found[loop.name]), flush=True)
    for (framework, variant), reference in found.items():
        trainer = found.get((framework, TRAINER))
        if variant != TRAINER and trainer is not None and trainer["steps"] and reference["steps"]:
            gaps = "; ".join(device_profile.differences(trainer, reference))
            print(f"profile {framework}: trainer against {variant}, a step: {gaps}", flush=True)


def save_checks(path: Path, found: list[dict]) -> None:
    """The harness checks as the site reads them (``fwbench.harness_checks``), with the command that made them."""
    write_checks(path, found, " ".join(["python", "benchmarks/idiomatic_loop.py", *sys.argv[1:]]))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=" ".join(__doc__.split("\n\n")[:3]),  # what it compares, how, and in one process
        formatter_class=HelpWithExamples,
        epilog="examples:\n  python benchmarks/idiomatic_loop.py   # the short default: every configuration\n"
        "  python benchmarks/idiomatic_loop.py --configs tensorflow:compiled --pairs 6 --steps 8\n"
        "  python benchmarks/idiomatic_loop.py --workload gpt --configs torch:compiled,tensorflow:compiled,jax:compiled"
        " --batch-size 16\n"
        "  python benchmarks/idiomatic_loop.py --device tpu --precisions bf16,default --batch-sizes 256 --steps 100 "
        "--out results/harness/tpu.json\n"
        "  python benchmarks/idiomatic_loop.py --device tpu --workload gpt --precisions default,bf16 --batch-sizes 64 "
        "--steps 50\n",
    )
    parser.add_argument(
        "--configs",
        type=csv_of(str, CONFIGS),
        metavar="F:MODE,…",
        help=f"without --device: framework:mode pairs to check in worker processes (default: all of "
        f"{', '.join(CONFIGS)})",
    )
    parser.add_argument(
        "--device",
        choices=("auto", "cpu", "gpu", "tpu"),
        help="check the JAX-based frameworks (--frameworks) in this one process, on this device (a TPU admits one "
        "process)",
    )
    parser.add_argument(
        "--frameworks",
        type=csv_of(str, ONE_PROCESS_FRAMEWORKS),
        default=list(ONE_PROCESS_FRAMEWORKS),
        metavar="F,…",
        help=f"with --device: the frameworks to check (default {','.join(ONE_PROCESS_FRAMEWORKS)})",
    )
    parser.add_argument(
        "--precisions",
        type=csv_of(str, PRECISION_POLICIES),
        default=["fp32"],
        metavar="P,…",
        help="the precision policies, each in turn (default fp32; fp32 runs last, since it sets JAX's matmul "
        "precision for the whole process)",
    )
    parser.add_argument(
        "--workload",
        choices=sorted(LOOPS),
        default="resnet18",
        help="what the loops train (default resnet18; gpt: fwbench's GPT against nanoGPT-shaped loops)",
    )
    gpt_sizes = ", ".join(WORKLOADS["gpt"].module("arch").SIZES)
    parser.add_argument("--size", help=f"with --workload gpt: the GPT's size ({gpt_sizes}; default the first)")
    parser.add_argument(
        "--batch-size", type=positive_int, default=32, help="without --device: images (sequences) per step"
    )
    parser.add_argument(
        "--batch-sizes", type=csv_of(positive_int), default=[256], metavar="N,…", help="with --device (default 256)"
    )
    parser.add_argument("--steps", type=positive_int, default=5, help="timed steps per round (default 5)")
    parser.add_argument("--pairs", type=positive_int, default=4, help="without --device: pairs of rounds (default 4)")
    parser.add_argument("--rounds", type=positive_int, default=6, help="with --device: rounds (default 6)")
    parser.add_argument(
        "--min-ratio", type=positive_float, default=0.97, help="exit 1 below this median ratio (default 0.97)"
    )
    parser.add_argument("--out", type=Path, help="write the harness checks as JSON here")
    parser.add_argument(
        "--profile",
        type=Path,
        metavar="DIR",
        help="with --device: after the rounds, trace one more round of each loop with JAX's profiler (below DIR) and "
        "print its device time a step by op category, and where the trainer spends more than each reference",
    )
    # internal: framework mode variant batch steps precision workload size ("-": the workload's own)
    parser.add_argument("--worker", nargs=8, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.device is None:
        args.configs = args.configs or list(CONFIGS)
    elif args.configs:
        parser.error("--configs is for worker processes; with --device, name --frameworks")
    if args.profile is not None and args.device is None:
        parser.error("--profile traces the loops of one process: give --device")
    try:
        workload(args.workload).at(args.size)
    except ValueError as exc:
        parser.error(f"--size: {exc}")
    args.precisions = sorted(dict.fromkeys(args.precisions), key=lambda p: p == "fp32")  # fp32 last
    return args


def main(argv: list[str] | None = None, script: str = __file__) -> int:
    """Compare the Trainer with the minimal loops: in workers, or with ``--device`` in this process."""
    args = parse_args(argv)
    if args.worker:
        framework, mode, variant, batch_size, steps, precision, name, size = args.worker
        spec = workload(name).at(None if size == "-" else size)
        worker(framework, mode, variant, int(batch_size), int(steps), precision, spec)
        return 0
    return in_one_process(args) if args.device else in_workers(args, script)


if __name__ == "__main__":
    sys.exit(main())
