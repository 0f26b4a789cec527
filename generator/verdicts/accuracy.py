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


def undertrained(summary: Summary, classes: int) -> tuple[Message, ...]:
    """Why a configuration's accuracy means nothing yet — its test accuracy at or below chance (1 / classes), or
    a final loss not below ln(classes), the loss of a uniform guess — or no reason when it is past both."""
    chance, uniform_loss = 1 / classes, math.log(classes)
    reasons = []
    if summary.accuracy and summary.accuracy.mean <= chance:
        reasons.append(Message(N_("test accuracy at or below chance ({chance:.0%})"), {"chance": chance}))
    for metric, words in (("train_loss", N_("training loss")), ("test_loss", N_("test loss"))):
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
