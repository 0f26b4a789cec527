"""When compiling pays off against eager mode: after how many epochs, where the records can tell the epochs apart."""

from __future__ import annotations

import math
from dataclasses import dataclass

from fwbench.stats import APART, separation
from generator.records.aggregate import Column, Table


@dataclass(frozen=True)
class Payoff:
    """Compiled against eager epochs of one framework at one batch size."""

    status: str | None  # the epoch times' ``stats.separation``; None when either comes from flagged runs only
    n: int  # the smaller run count of the two epoch figures
    epochs: int | None = None  # APART: after how many epochs compiling has paid off; None: never (eager is faster)

    @property
    def measurable(self) -> bool:
        """True when the compiled and eager epoch times are apart: only then is there a pay-off to state."""
        return self.status == APART


def payoff(table: Table, column: Column, batch_size: int) -> Payoff | None:
    """The compiled mode's extra start-up with cold caches set against the epoch time it saves (from the means),
    where the compiled and eager epoch times are apart and they and the cold compiles come from judged runs; None
    when the records hold no eager or compiled figure to set beside."""
    compiled = table.at(column, batch_size)
    eager = table.at(Column(column.framework, column.version, "eager"), batch_size)
    if not all(s and s.epoch_seconds and s.compile_seconds for s in (compiled, eager)):
        return None
    # judged runs only: the epochs' and the cold compile's own (a cold compile may come from busy runs alone)
    judged = all(s.judgeable and s.cached(warm=False).judgeable for s in (compiled, eager))
    status = separation(eager.epoch_seconds, compiled.epoch_seconds) if judged else None
    n = min(eager.epoch_seconds.n, compiled.epoch_seconds.n)
    saved = eager.epoch_seconds.mean - compiled.epoch_seconds.mean
    if status != APART or saved <= 0:
        return Payoff(status, n)
    extra = compiled.compile_seconds.mean - eager.compile_seconds.mean
    return Payoff(status, n, max(1, math.ceil(extra / saved)))
