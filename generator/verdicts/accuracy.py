"""What an accuracy figure can mean: whether the runs trained long enough to say anything, and whether the
frameworks classified the same test images correctly (as the parity tests predict: same weights, same batches,
same update)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from generator.i18n import N_
from generator.message import Message
from generator.records.aggregate import Summary, Table

#: below this many epochs a convergence curve has too few points to draw
MIN_EPOCHS_FOR_CURVE = 2


#: a final test loss above this many times ln(classes) is divergence, not too little training: a model near its
#: initialisation scores about ln(classes), the loss of a uniform guess (2.3-2.6 after the quick profile's few
#: steps), and too little training leaves it there; twice that, measured after the last step, means a trained
#: model confidently wrong, made worse than a guess by its steps. The test loss decides: the training loss is an
#: epoch's mean, and a run whose loss rose early may have recovered by the end
DIVERGED_ABOVE = 2.0
#: the loss metrics of a record's epochs, as a reason names them
LOSSES = (("train_loss", N_("training loss")), ("test_loss", N_("test loss")))


def _first_losses(summary: Summary) -> tuple[float, float, int] | None:
    """The mean loss of the first and of the last recorded first step (``training.first_losses``) over the counted
    runs that hold them, and how many steps; None where no run recorded them."""
    found = [losses for r in summary.counted if (losses := (r.get("training") or {}).get("first_losses"))]
    steps = min((len(losses) for losses in found), default=0)
    if steps < 2:
        return None
    return sum(f[0] for f in found) / len(found), sum(f[steps - 1] for f in found) / len(found), steps


def diverged(summary: Summary, classes: int) -> tuple[Message, ...]:
    """Why a configuration's training diverged — a final test loss above DIVERGED_ABOVE × ln(classes) — with its
    training loss where that is above too, and how its first steps' losses rose where the records hold them and
    they rose; no reason when its test loss is not above."""
    limit = DIVERGED_ABOVE * math.log(classes)
    test_loss = summary.final("test_loss")
    if not test_loss or test_loss.mean <= limit:
        return ()
    reasons = []
    for metric, words in LOSSES:
        final = summary.final(metric)
        if final and final.mean > limit:
            reasons.append(
                Message(
                    N_("{figure} {value:.2f}, more than {times:g} × ln {classes} = {limit:.2f}"),
                    {
                        "figure": Message(words),
                        "value": final.mean,
                        "times": DIVERGED_ABOVE,
                        "classes": classes,
                        "limit": limit,
                    },
                )
            )
    first = _first_losses(summary)
    if first and first[1] > first[0]:
        reasons.append(
            Message(
                N_("the loss rose over the first {steps} steps, from {first:.2f} to {last:.2f}"),
                {"steps": first[2], "first": first[0], "last": first[1]},
            )
        )
    return tuple(reasons)


def undertrained(summary: Summary, classes: int) -> tuple[Message, ...]:
    """Why a configuration's accuracy means nothing yet — its test accuracy at or below chance (1 / classes), or
    a final loss not below ln(classes), the loss of a uniform guess — or no reason when it is past both or its
    training diverged (``diverged``: a reason of its own)."""
    chance, uniform_loss = 1 / classes, math.log(classes)
    if diverged(summary, classes):
        return ()
    reasons = []
    if summary.accuracy and summary.accuracy.mean <= chance:
        reasons.append(Message(N_("test accuracy at or below chance ({chance:.0%})"), {"chance": chance}))
    for metric, words in LOSSES:
        final = summary.final(metric)
        if final and final.mean >= uniform_loss:
            reasons.append(
                Message(
                    N_("{figure} {value:.2f}, not below ln {classes} = {uniform:.2f}"),
                    {"figure": Message(words), "value": final.mean, "classes": classes, "uniform": uniform_loss},
                )
            )
    return tuple(reasons)


@dataclass(frozen=True)
class Agreement:
    """One batch size: how many test images each column's runs classified correctly, by seed."""

    batch_size: int
    test_images: int | None
    counts: dict[str, tuple[int, ...]]  # column label -> correct test images of each run, by seed

    @property
    def agree(self) -> bool:
        """True when every column classified exactly as many test images correctly, run by run."""
        return len(set(self.counts.values())) == 1


def _correct(record: dict, test_images: int) -> int:
    return round(record["accuracy"]["final_test_accuracy"] * test_images)


def image_agreement(table: Table) -> list[Agreement]:
    """Per batch size with two or more columns that share seeds, the correct test images of each run."""
    found = []
    for bs in table.batch_sizes:
        summaries = {table.column_label(c): s for c in table.columns if (s := table.at(c, bs)) and s.n_ok}
        test_images = {s.test_images for s in summaries.values()}
        if len(summaries) < 2 or len(test_images) != 1 or None in test_images:
            continue
        (size,) = test_images
        seeds = set.intersection(*({r["config"]["seed"] for r in s.counted} for s in summaries.values()))
        if not seeds:
            continue
        counts = {
            name: tuple(
                _correct(r, size)
                for r in sorted(s.counted, key=lambda r: r["config"]["seed"])
                if r["config"]["seed"] in seeds
            )
            for name, s in summaries.items()
        }
        found.append(Agreement(bs, size, counts))
    return found
