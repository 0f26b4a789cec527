"""How many times the matrix runs each configuration: a fixed count, or ``auto``: again while undecided.

A repeat is the same configuration again (same seed, same identity: ``RunConfig.config_id``), in a record of its own
(``RunConfig.repeat``, ``…-r1.json``); the generator pools repeats as runs of one configuration, as it pools seeds.
With ``auto`` the matrix runs the profile once, then, round after round, only the configurations whose comparison
(``runners.matrix.comparisons``) its sitting has not decided yet, until every comparison is decided or its pair has
``max_repeats`` paired rounds in the sitting (runs on a quiet machine, both of a round), or a configuration twice as
many runs in the sitting; a fixed count runs every configuration that many times. A matrix started after the latest
sitting is over (another day, another boot) makes a new sitting, which runs again until it decides by itself. What is
compared is the profile's ``decides``: throughput at every batch size (the default), and, for quick, the warm compile
time and memory peak at the largest, which "Which to choose" judges from warm runs alone, so that a ``make site`` ends
with those rows decided too where the time allows.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from fwbench.cliargs import positive_int
from fwbench.gap import MIN_EFFECT
from runners.matrix.comparisons import RUNS_LIMIT_FACTOR
from runners.matrix.figures import DECIDES

AUTO = "auto"


@dataclass(frozen=True)
class Repeats:
    """How often each configuration runs: ``runs`` times (fixed), or, ``auto``, again while undecided, until its
    comparison's pair has ``runs`` paired rounds in the sitting (the cap), at most ``limit`` times; ``decides``: the
    figures compared (``comparisons.DECIDES``)."""

    runs: int = 1
    auto: bool = False
    decides: tuple[str, ...] = ("throughput",)

    @property
    def limit(self) -> int:
        """The most runs of a configuration: ``RUNS_LIMIT_FACTOR`` × the cap in a sitting with auto (a run on a busy
        machine pairs with nothing and does not count towards the cap, and an always busy machine must stop too; a
        later sitting gets as many), else the fixed count."""
        return RUNS_LIMIT_FACTOR * self.runs if self.auto else self.runs

    def describe(self) -> str:
        """The policy in words, for the dry run."""
        if self.auto:
            return (
                f"auto: after the first round, a configuration runs again while a comparison of it is undecided in "
                f"this sitting (the 95 % interval of the leader's figure over the runner-up's, round by round, neither "
                f"beyond {MIN_EFFECT:g}× nor within it, or n < 3), until its pair has {self.runs} paired rounds in the "
                f"sitting (both runs of a round made on a quiet machine), at most {self.limit} runs each in it; "
                f"compared: {self.compared()}"
            )
        return f"{self.runs} run{'s' if self.runs > 1 else ''} of each configuration"

    def compared(self) -> str:
        """What the comparisons compare, in words: ``throughput``, or with the figures judged at the largest batch
        size: ``throughput, and at the largest batch size the warm runs' compile time and memory peak``."""
        extra = [DECIDES[name] for name in self.decides[1:]]
        return "throughput" + (f", and at the largest batch size the warm runs' {' and '.join(extra)}" if extra else "")

    @property
    def flag(self) -> str:
        """The policy as ``--repeats`` spells it."""
        return AUTO if self.auto else str(self.runs)


def repeats_value(text: str) -> int | str:
    """An argparse type for ``--repeats``: ``auto`` or a positive integer."""
    if text.strip().lower() == AUTO:
        return AUTO
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a positive integer or {AUTO}, got {text!r}") from None


def repeats_of(spec: dict, given: int | str | None = None) -> Repeats:
    """The policy of a profile ``spec`` (its ``repeats``, 1 when it has none; ``auto`` capped at its
    ``max_repeats``; the figures its ``decides`` names, throughput first), or the ``--repeats`` value ``given``
    instead. ValueError naming the field when ``decides`` is not DECIDES's, throughput first."""
    value = spec.get("repeats", 1) if given is None else given
    names = list(DECIDES)
    decides = tuple(spec.get("decides", names[:1]))
    if decides[:1] != (names[0],) or not set(decides) <= set(names) or len(set(decides)) < len(decides):
        raise ValueError(f"decides: expected throughput, then any of {', '.join(names[1:])}, got {list(decides)!r}")
    if value == AUTO:
        return Repeats(spec["max_repeats"], auto=True, decides=decides)
    return Repeats(value, decides=decides)
