"""What an accuracy figure can mean: whether the runs trained long enough to say anything, and whether the
frameworks classified as many test images correctly, seed by seed (same weights, same batches, the same update to
within rounding: the parity tests)."""

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
    """One batch size: how many test images each column's runs classified correctly, seed by seed.

    A column's repeats of one seed are the same computation (same weights, same batches): they count once, as one
    number where they agree among themselves and as each distinct number where they do not, which no other column
    can then match. The records hold counts, not per-image predictions: equal counts show that as many images were
    right, not that the same ones were."""

    batch_size: int
    test_images: int | None
    seeds: tuple[int, ...]  # the seeds every column ran
    counts: dict[str, tuple[tuple[int, ...], ...]]  # column label -> for each seed, its runs' distinct counts

    @property
    def repeats_differ(self) -> bool:
        """True when some column's runs of one seed classified different numbers of test images correctly."""
        return any(len(found) > 1 for per_seed in self.counts.values() for found in per_seed)

    @property
    def agree(self) -> bool:
        """True when every column's runs classified the same number of test images correctly, seed by seed."""
        return not self.repeats_differ and len(set(self.counts.values())) == 1


def _correct(record: dict, test_images: int) -> int:
    return round(record["accuracy"]["final_test_accuracy"] * test_images)


def image_agreement(table: Table) -> list[Agreement]:
    """Per batch size with two or more columns that share seeds, the correct test images of each column's runs,
    seed by seed (see ``Agreement``)."""
    found = []
    for bs in table.batch_sizes:
        summaries = {table.column_label(c): s for c in table.columns if (s := table.at(c, bs)) and s.n_ok}
        test_images = {s.test_images for s in summaries.values()}
        if len(summaries) < 2 or len(test_images) != 1 or None in test_images:
            continue
        (size,) = test_images
        seeds = sorted(set.intersection(*({r["config"]["seed"] for r in s.counted} for s in summaries.values())))
        if not seeds:
            continue
        counts = {
            name: tuple(
                tuple(sorted({_correct(r, size) for r in s.counted if r["config"]["seed"] == seed})) for seed in seeds
            )
            for name, s in summaries.items()
        }
        found.append(Agreement(bs, size, tuple(seeds), counts))
    return found
