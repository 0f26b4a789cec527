"""Parity check of the GPT: the three frameworks compute the same logits, mask and AdamW update.

``capture`` runs in one framework's process (``python -m runners.workloads.gpt.parity --framework F --out F.npz``,
each framework in a fresh interpreter, since float64 is a process-wide switch in Keras and JAX, which each trainer
sets again): one set of NumPy weights is loaded into the small model (``arch.TINY``), the same grammar batches go
through, and the logits, the logits with one later token changed, and every weight after every clipped AdamW step
are saved. ``compare`` measures the differences between two captures, with ``runners.workloads.resnet18.parity``'s
measure. One process makes several captures (``--precision fp32,default``, or any plan: ``--plan``,
``runners.workloads.parity_captures``), as ResNet-18's parity does; a GPT capture also names its attention path
(None: the precision's) and the model's context (the Pallas flash kernel takes 128 tokens at least).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fwbench.frameworks import FRAMEWORKS
from runners.workloads import make_trainer
from runners.workloads.gpt import arch, attention, data, recipe
from runners.workloads.parity_captures import DTYPES, Capture, plan_type, precision_list, run_plan, run_plans
from runners.workloads.resnet18.parity import relative_difference

PARITY_BATCH = 4
PARITY_STEPS = 3
#: the token the mask check changes: every earlier position's logits must stay as they were
CHANGED_POSITION = arch.TINY.context // 2
MODULE = "runners.workloads.gpt.parity"
#: the precision policies a GPT parity capture takes: fp32 writes attention out, the others fuse it unless the
#: capture names its path
PRECISIONS = ("fp32", "default", "bf16")


@dataclass(frozen=True)
class GPTCapture(Capture):
    """A capture of the small model (``arch.TINY`` at ``context`` tokens) with attention ``attention`` (None: the
    precision's)."""

    attention: str | None = None
    context: int = arch.TINY.context

    @property
    def key(self) -> str:
        """``Capture.key``, then the attention path and the context where the capture names them."""
        path = f".{self.attention}" if self.attention else ""
        return super().key + path + (f".ctx{self.context}" if self.context != arch.TINY.context else "")


def gpt_plan(text: str) -> tuple[GPTCapture, ...]:
    """``--plan``'s type: ``parity_captures.plan_type``'s list of captures, each with an optional ``attention`` (a
    path of ``attention.PATHS``) and ``context``."""
    try:
        listed = [dict(fields) for fields in json.loads(text)]
        own = [{key: fields.pop(key) for key in ("attention", "context") if key in fields} for fields in listed]
    except (json.JSONDecodeError, TypeError, ValueError) as error:
        raise argparse.ArgumentTypeError(f"not a JSON list of captures ({error})") from None
    for fields in own:
        if fields.get("attention") not in (None, *attention.PATHS):
            raise argparse.ArgumentTypeError(f"attention {fields['attention']!r}: one of {', '.join(attention.PATHS)}")
    # each checked alone: plan_type would take two captures that differ in attention or context alone for one
    checked = (plan_type(PRECISIONS)(json.dumps([fields]))[0] for fields in listed)
    plan = tuple(GPTCapture(**dataclasses.asdict(c), **fields) for c, fields in zip(checked, own, strict=True))
    if len(set(plan)) != len(plan):
        raise argparse.ArgumentTypeError("a capture is planned twice")
    return plan


def with_changed_token(tokens: np.ndarray, position: int = CHANGED_POSITION) -> np.ndarray:
    """A copy of ``tokens`` (batch, context) with every sequence's token at ``position`` replaced by another."""
    changed = tokens.copy()
    changed[:, position] = (changed[:, position] + 1) % arch.VOCAB
    return changed


def inputs(
    steps: int = PARITY_STEPS, batch_size: int = PARITY_BATCH, seed: int = 0, config: arch.GPTConfig = arch.TINY
) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """The parity run's initial weights (biases and LayerNorms random, so that each matters) and its ``steps``
    batches of tokens and targets, (steps, batch, context), for the model of sizes ``config``."""
    windows = data.load(data.NAME, None, batch_size * steps, 0, config=config).train
    return (arch.init_weights(seed, config, random_affine=True), *data.epoch_batches(windows, seed, 0, batch_size))


def capture(
    name: str,
    mode: str,
    dtype: str = "float64",
    steps: int = PARITY_STEPS,
    precision: str = "fp32",
    batch_size: int = PARITY_BATCH,
    attention: str | None = None,
    context: int = arch.TINY.context,
    config: arch.GPTConfig | None = None,
    device: str = "cpu",
) -> dict[str, np.ndarray]:
    """Logits on one batch and on the batch with a later token changed, then the weights after each AdamW step, of
    ``arch.TINY`` at ``context`` tokens (or of ``config``) on ``device``; ``attention`` the path (None: the
    precision's, fp32's written out)."""
    config = config or dataclasses.replace(arch.TINY, context=context)
    weights, tokens, targets = inputs(steps, batch_size, config=config)
    trainer = make_trainer("gpt", name, weights, mode, device, dtype, precision, config=config, attention=attention)
    batches = trainer.to_device(tokens, targets)
    ((changed, _),) = trainer.to_device(with_changed_token(tokens[0])[None], targets[:1])
    out = {"logits": trainer.logits(batches[0][0]), "logits.changed": trainer.logits(changed)}
    out.update({f"step0.{k}": v for k, v in weights.items()})
    for step, ((x, y), lr) in enumerate(zip(batches, recipe.learning_rates(batch_size, steps), strict=True), start=1):
        loss, _ = trainer.train_step(x, y, float(lr))
        out[f"loss{step}"] = np.asarray(float(loss))
        out.update({f"step{step}.{k}": v for k, v in trainer.weights().items()})
    return out


def compare(a: dict[str, np.ndarray], b: dict[str, np.ndarray], steps: int = PARITY_STEPS) -> dict[str, float]:
    """Worst relative differences between two captures: logits, losses and per-step updates (w_t − w_{t−1}, so that
    a difference in the update rule is not hidden by the weights' own size)."""
    names = [key.removeprefix("step0.") for key in a if key.startswith("step0.")]
    return {
        "logits": relative_difference(a["logits"], b["logits"]),
        "loss": max(relative_difference(a[f"loss{s}"], b[f"loss{s}"]) for s in range(1, steps + 1)),
        "update": max(
            relative_difference(a[f"step{s}.{n}"] - a[f"step{s - 1}.{n}"], b[f"step{s}.{n}"] - b[f"step{s - 1}.{n}"])
            for s in range(1, steps + 1)
            for n in names
        ),
    }


def mask_leak(captured: dict[str, np.ndarray], position: int = CHANGED_POSITION) -> tuple[float, float]:
    """How far the logits moved when the token at ``position`` changed: (worst relative change before it, at and
    after it). A causal model keeps the first at zero; the second shows the change reached the model at all."""
    before, after = captured["logits"], captured["logits.changed"]
    scale = float(np.max(np.abs(before)))
    moved = np.abs(after.astype(np.float64) - before) / scale
    return float(moved[:, :position].max()), float(moved[:, position:].max())


def capture_plans(plans: dict[str, tuple[GPTCapture, ...]], workdir: Path) -> dict[GPTCapture, dict[str, dict]]:
    """Each framework's plan of captures in a fresh interpreter of its own (``parity_captures.run_plans``): by capture,
    by framework."""
    return run_plans(MODULE, plans, workdir)


def planned(
    mode: str,
    dtype: str,
    precision: str = "fp32",
    steps: int = PARITY_STEPS,
    attention: str | None = None,
    context: int = arch.TINY.context,
) -> GPTCapture:
    """A capture of the parity batch."""
    return GPTCapture(mode, dtype, precision, steps, PARITY_BATCH, attention, context)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Capture one framework's GPT for the parity tests.")
    parser.add_argument("--framework", choices=FRAMEWORKS, required=True)
    parser.add_argument("--mode", default="eager", help="a framework without this mode runs its first (JAX: compiled)")
    parser.add_argument("--dtype", choices=DTYPES, default="float64")
    parser.add_argument("--out", type=Path, required=True, help="where the capture's .npz goes")
    parser.add_argument("--steps", type=int, default=PARITY_STEPS, help=f"AdamW steps (default {PARITY_STEPS})")
    parser.add_argument(
        "--precision",
        type=precision_list(PRECISIONS),
        default=("fp32",),
        help="fp32, default or bf16 (the latter two with the fused attention), comma-separated, captured in turn",
    )
    parser.add_argument(
        "--plan",
        type=gpt_plan,
        help="a JSON list of captures (mode, dtype, precision, steps, batch_size, and optionally attention and "
        "context) made by one process, in place of the flags above",
    )
    args = parser.parse_args(argv)
    run_plan(
        capture,
        args.framework,
        args.plan or [planned(args.mode, args.dtype, p, args.steps) for p in args.precision],
        args.out,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
