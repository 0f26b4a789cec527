"""Reference loss trajectories: proof that a record trained fwbench's network on fwbench's data.

All three frameworks start from the same NumPy weights and see the same batches, so the loss of each of the first
``FIRST_LOSSES`` steps of the first timed epoch is fixed by the configuration: its data set and size, epochs (the
learning-rate schedule), seed and batch size. A run writes its first losses into its record
(``training.first_losses``); this module computes the same steps in float64 through the parity path (PyTorch,
eager: the three agree there to ~1e-12, ``tests/runners/test_parity.py``) and stores them, with the bound each
precision policy's runs keep to and the model's size, in ``fwbench/reference_losses.json``. ``generator check``
compares a record's losses with them (docs/design.md, "Submissions").

``python -m runners.workloads.resnet18.reference_losses`` recomputes the trajectories of every configuration on offline
data (ResNet-18's synthetic set, the GPT's grammar) the profiles expand to, on a CPU and on a GPU, and keeps the bounds;
``--measure fp32`` runs the float32 compiled steps of every framework, each in a process of its own, against the
references and writes the bound of each step: the worst relative deviation seen at that step times ``BOUND_MARGIN``,
rounded up to a power of ten. The bound grows with the step: the first loss is the same forward pass in every
framework (float32 rounding only), and each update after it amplifies the rounding.
CIFAR-10 has no reference (it cannot be downloaded everywhere); the check says so.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from fwbench.frameworks import FRAMEWORKS, framework
from fwbench.records import epoch_train_images
from runners.frameworks.precision import PRECISION_POLICIES
from runners.measure.profile_fit import too_large
from runners.measure.profile_loading import load_profiles
from runners.measure.profiles import RunConfig, expand
from runners.measure.protocol import FIRST_LOSSES
from runners.measure.provenance import REPO_ROOT
from runners.workloads import WORKLOADS, Workload

#: shared data (the generator reads it too, as a file): in ``fwbench/``, like the version sets
DATA_FILE = Path(__file__).resolve().parents[3] / "fwbench" / "reference_losses.json"
COMMAND = "python -m runners.workloads.resnet18.reference_losses"
#: the bound is the worst measured deviation times this, rounded up to a power of ten
BOUND_MARGIN = 10
#: the profiles' devices: a device-sized profile trains other sizes on each
DEVICES = ("cpu", "gpu")
#: the profiles whose CPU configurations a bound is measured on: both workloads, a step or two and a full quick epoch
MEASURED_PROFILES = ("smoke", "quick", "smoke-gpt", "quick-gpt")
#: the data sets made offline, from a seed: the only ones with references (CIFAR-10 is a download)
OFFLINE_DATASETS = ("synthetic", "grammar")


def workload_of_dataset(dataset: str) -> Workload:
    """The workload that trains on ``dataset`` (each data set belongs to one)."""
    return next(w for w in WORKLOADS.values() if dataset in w.datasets)


def model_fields(spec: Workload) -> dict[str, int]:
    """What a record's ``model`` must say of workload ``spec`` (at its size) for its runs to be fwbench's: the
    parameter count and the forward FLOPs per sample, named as the record names them."""
    return {"trainable_params": spec.trainable_params(), f"flops_per_{spec.sample}": spec.flops_per_sample()}


def shipped_models() -> dict[str, dict[str, int]]:
    """The references' ``models``: each workload's fields at its default size, under its name (the reference
    trajectories are of that size), and each named size's, under its model name (``gpt-gpt2-small``)."""
    models = {name: model_fields(spec) for name, spec in WORKLOADS.items()}
    for spec in WORKLOADS.values():
        sizes = getattr(spec.module("arch"), spec.sizes) if spec.sizes else {}
        models |= {spec.at(size).model_name: model_fields(spec.at(size)) for size in sizes}
    return models


@dataclass(frozen=True, order=True)
class Key:
    """What fixes a run's first losses: the data set and the images loaded (``RunConfig.epoch_train_images``: the
    permutation and the schedule's length follow from them), the epochs (the schedule's length), the seed and the
    batch size. The same for every framework, mode and machine."""

    dataset: str
    images: int
    epochs: int
    seed: int
    batch_size: int

    @classmethod
    def of(cls, config: dict) -> Key | None:
        """The key of a record's ``config`` section (None for an upgraded version-1 one, which names no request):
        ``train_images`` raised to ``min_timed_steps`` whole batches, as the run loaded them."""
        if config.get("train_images") is None:
            return None
        images = epoch_train_images(config["train_images"], config.get("min_timed_steps"), config["batch_size"])
        return cls(config["dataset"], images, config["epochs"], config["seed"], config["batch_size"])

    @classmethod
    def of_run(cls, config: RunConfig) -> Key:
        """The key of a configuration the profiles expand to."""
        return cls(config.dataset, config.epoch_train_images, config.epochs, config.seed, config.batch_size)


def profile_keys() -> list[Key]:
    """Every offline-data configuration the profiles expand to, on a CPU and on a GPU where they fit, once each; a
    model of another size than its workload's default has none (a key names no model: references are the
    default's)."""
    found = set()
    for name, spec in load_profiles().items():
        for device in (d for d in DEVICES if not too_large(spec, d)):
            for config in expand(name, version_of=lambda _f: None, frameworks=[FRAMEWORKS[0]], device=device):
                if config.dataset in OFFLINE_DATASETS and config.size is None:
                    found.add(Key.of_run(config))
    return sorted(found)


def first_losses(
    name: str,
    key: Key,
    dtype: str = "float64",
    mode: str = "eager",
    steps: int = FIRST_LOSSES,
    undo_first: bool = False,
    precision: str = "fp32",
    device: str = "cpu",
) -> list[float]:
    """The loss of each of the first ``steps`` steps (fewer when the epoch has fewer) of ``key``'s first epoch in
    framework ``name`` under precision policy ``precision``, trained on ``device``; ``undo_first``: as
    ``runners.measure.run`` trains it, the first step run once and undone before (a float64 reference skips it: the undo
    is exact there, and a step in float64 costs seconds)."""
    from runners.workloads import make_trainer  # imports the framework: only in the process that trains

    spec = workload_of_dataset(key.dataset)
    dataset = spec.module("data").load(key.dataset, None, key.images, 1, progress=False)
    weights = spec.module("arch").init_weights(key.seed)
    per_epoch = key.images // key.batch_size
    rates = spec.module("lr_schedule").learning_rates(key.batch_size, per_epoch * key.epochs)
    inputs, targets = dataset.train_batches(key.seed, 0, key.batch_size)
    count = min(steps, per_epoch)
    trainer = make_trainer(spec.name, name, weights, mode, device=device, dtype=dtype, precision=precision)
    batches = trainer.to_device(inputs[:count], targets[:count])
    if undo_first:  # the untimed first step, undone
        trainer.train_step(*batches[0], float(rates[0]))
        trainer.restore(weights)
    return [float(trainer.train_step(x, y, float(lr))[0]) for (x, y), lr in zip(batches, rates[:count], strict=True)]


def deviations(losses: list[float], reference: list[float]) -> list[float]:
    """Each step's |loss − reference| / |reference|, over the steps both have."""
    return [abs(a - b) / abs(b) for a, b in zip(losses, reference, strict=False)]


def worst_per_step(runs: list[list[float]]) -> list[float]:
    """The worst deviation at each step index over several runs' ``deviations``."""
    return [max(run[i] for run in runs if len(run) > i) for i in range(max(map(len, runs)))]


def bound_of(worst: float) -> float:
    """The bound for a worst measured deviation: ``BOUND_MARGIN`` times it, rounded up to a power of ten."""
    return 10.0 ** math.ceil(math.log10(max(worst, 1e-12) * BOUND_MARGIN))


def read_data(path: Path = DATA_FILE) -> dict:
    """The reference file, or an empty one with no trajectories and no bounds."""
    return json.loads(path.read_text()) if path.exists() else {"trajectories": [], "bounds": {}}


def write_data(content: dict, path: Path = DATA_FILE) -> None:
    path.write_text(json.dumps(content, indent=1) + "\n")


def capture(name: str, keys: list[Key], dtype: str, mode: str, precision: str = "fp32") -> list[list[float]]:
    """``first_losses`` of every key under ``precision``, in framework ``name`` in a fresh interpreter (a framework
    per process)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "losses.json"
        command = [
            sys.executable,
            "-m",
            "runners.workloads.resnet18.reference_losses",
            "--capture",
            name,
            "--dtype",
            dtype,
        ]
        command += ["--mode", mode, "--precision", precision, "--out", str(out)]
        command += ["--keys", json.dumps([asdict(k) for k in keys])]
        done = subprocess.run(command, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"capture of {name} failed:\n{done.stderr[-3000:]}")
        return json.loads(out.read_text())


def regenerate(path: Path = DATA_FILE) -> dict:
    """Recompute every profile key's float64 trajectory, keeping the bounds already measured."""
    keys = profile_keys()
    losses = capture(FRAMEWORKS[0], keys, "float64", "eager")
    content = {
        "_comment": f"Made by `{COMMAND}` (docs/design.md, 'Submissions'): per configuration, the float64 loss of "
        f"each of the first {FIRST_LOSSES} steps of the first epoch ({FRAMEWORKS[0]}, eager: the parity path); per "
        "precision policy, the largest relative deviation each of a run's first losses may have from them, and how it "
        f"was measured (`{COMMAND} --measure POLICY`).",
        "first_losses": FIRST_LOSSES,
        "reference": {"framework": FRAMEWORKS[0], "mode": "eager", "dtype": "float64"},
        "models": shipped_models(),
        "bounds": read_data(path).get("bounds", {}),
        "trajectories": [{"key": asdict(k), "losses": v} for k, v in zip(keys, losses, strict=True)],
    }
    write_data(content, path)
    return content


def measure(policy: str, frameworks: list[str], profiles: list[str], path: Path = DATA_FILE) -> dict:
    """Measure ``policy``'s bound per step: every framework's compiled float32 steps under ``policy`` at the
    references of ``profiles`` (trained on a CPU; the workloads that apply ``policy`` alone), each against the
    reference; write the worst deviations and the bounds."""
    content = read_data(path)
    keys = {
        Key.of_run(c)
        for name in profiles
        for c in expand(name, version_of=lambda _f: None, frameworks=[FRAMEWORKS[0]], device="cpu")
        if policy in WORKLOADS[c.workload].precisions
    }
    references = {Key(**t["key"]): t["losses"] for t in content["trajectories"] if Key(**t["key"]) in keys}
    keys = sorted(references)
    worst = {}
    for name in frameworks:
        mode = "compiled" if "compiled" in framework(name).training_modes else framework(name).training_modes[0]
        found = capture(name, keys, "float32", mode, policy)
        worst[name] = worst_per_step([deviations(f, references[k]) for k, f in zip(keys, found, strict=True)])
        print(
            f"{name} ({mode}, {policy}): worst relative deviation per step "
            + ", ".join(f"{w:.1e}" for w in worst[name])
        )
    content["bounds"][policy] = {
        "relative": [bound_of(w) for w in worst_per_step(list(worst.values()))],
        "measured_worst": worst,
        "measured_on": {"device": "cpu", "mode": "compiled", "configurations": [asdict(k) for k in keys]},
        "margin": BOUND_MARGIN,
    }
    write_data(content, path)
    return content


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Recompute the float64 reference trajectories (no option), measure a precision's bound "
        "(--measure), or capture one framework's first losses (--capture, used by the other two).",
        epilog=f"examples:\n  {COMMAND}\n  {COMMAND} --measure fp32\n  {COMMAND} --measure bf16",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--measure",
        choices=PRECISION_POLICIES,
        metavar="POLICY",
        help="measure this precision policy's bound (fp32, bf16)",
    )
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS), help="--measure: these frameworks")
    parser.add_argument(
        "--profiles",
        default=",".join(MEASURED_PROFILES),
        help="--measure: these profiles' CPU configurations (default %(default)s)",
    )
    parser.add_argument("--capture", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    parser.add_argument("--dtype", default="float64", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="eager", help=argparse.SUPPRESS)
    parser.add_argument("--precision", default="fp32", help=argparse.SUPPRESS)
    parser.add_argument("--keys", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.capture:
        keys = [Key(**k) for k in json.loads(args.keys)]
        undo = args.dtype != "float64"  # a measured run undoes its first step; the reference need not
        args.out.write_text(
            json.dumps(
                [
                    first_losses(args.capture, k, args.dtype, args.mode, undo_first=undo, precision=args.precision)
                    for k in keys
                ]
            )
        )
    elif args.measure:
        measure(args.measure, args.frameworks.split(","), args.profiles.split(","))
    else:
        print(f"{len(regenerate()['trajectories'])} reference trajectories written to {DATA_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
