"""What deciding each end costs on this machine: the rounds a comparison at the smallest or largest batch size
(``order.at_ends``) still needs to reach n = 3 paired rounds in the sitting (``fwbench.stats.MIN_RUNS_FOR_INTERVAL``:
fewer decide nothing), and their expected seconds from this machine's records (``budget.rounds_seconds``).

The matrix decides the cheapest end first and starts no end that cannot reach n = 3 before its budget ends: two
rounds of an end that the deadline then cuts off decide nothing, and their time would have decided the other end.
The dry run and ``make site``'s plan say how long both ends take (``ends_line``).
"""

from __future__ import annotations

from dataclasses import dataclass

from fwbench.stats import MIN_RUNS_FOR_INTERVAL
from runners.frameworks.precision import REFERENCE_PRECISION
from runners.matrix.budget import FROM_PROFILE, expected_seconds, other_sizes, rounds_seconds
from runners.matrix.comparisons import Comparison
from runners.matrix.figures import THROUGHPUT
from runners.matrix.order import at_ends
from runners.matrix.repeats import Repeats
from runners.matrix.store import ok_repeats
from runners.measure.profiles import RunConfig


@dataclass(frozen=True)
class EndCost:
    """One end (a batch size in the main precision) and what it still needs: ``rounds`` until n = 3 (0: decided,
    or there already), expected to take ``seconds`` here, of its configurations ``config_ids``."""

    batch_size: int
    precision: str
    rounds: int
    seconds: float
    config_ids: frozenset[str]
    compared: bool = True  # False: one framework there, nothing to decide
    guessed: bool = False  # True: no run of its configurations here yet, so the seconds are the profile's guess

    @property
    def name(self) -> str:
        """``bs 256``, ``bs 32 bf16`` outside fp32: as the comparisons' lines name it."""
        return f"bs {self.batch_size}" + ("" if self.precision == REFERENCE_PRECISION else f" {self.precision}")

    def need(self) -> str:
        """``3 rounds ≈ 8 min``, with ``(the profile's guess)`` where no run of it here says better."""
        guess = f" ({FROM_PROFILE})" if self.guessed else ""
        return f"{self.rounds} round{'s' if self.rounds != 1 else ''} {about_minutes(self.seconds)}{guess}"

    def not_started(self, seconds_left: float) -> str:
        """Why the matrix does not start this end, after its name (``bs 256: not started: …``): ``not started: 3
        rounds need ≈ 17 min, 6 min left``."""
        rounds = f"{self.rounds} round needs" if self.rounds == 1 else f"{self.rounds} rounds need"
        return f"not started: {rounds} {about_minutes(self.seconds)}, {left_words(seconds_left)}"


def end_costs(
    order: list[RunConfig],
    runs: dict[str, list[dict]],
    found: list[Comparison],
    repeats: Repeats,
    not_installed: dict[str, str] | None = None,
) -> list[EndCost]:
    """Each end of the matrix of ``order`` (first runs) with what it still needs, the cheapest first (the smaller
    batch size on a tie), from its configurations' ``runs`` (config id → records) and their comparisons ``found``
    now; a framework ``not_installed`` there runs nothing and costs nothing."""
    at_end = at_ends(order)
    missing = not_installed or {}
    ends: dict[tuple[int, str], list[RunConfig]] = {}
    for config in order:
        if at_end(config):
            ends.setdefault((config.batch_size, config.precision), []).append(config)
    costs = []
    for (batch_size, precision), configs in sorted(ends.items()):
        alone = len({(c.framework, c.framework_version) for c in configs}) < 2  # nothing to decide: its first runs
        rounds = 0 if alone and all(0 in ok_repeats(runs.get(c.config_id, [])) for c in configs) else 1
        if not alone:
            rounds = rounds_to_decide(
                [c for c in found if (c.batch_size, c.precision) == (batch_size, precision) and c.figure is THROUGHPUT],
                repeats,
            )
        seconds = sum(
            rounds_seconds(config, runs.get(config.config_id, []), other_sizes(config, order, runs), rounds)
            for config in configs
            if config.framework not in missing
        )
        ids = frozenset(c.config_id for c in configs)
        guessed = any(
            expected_seconds(c, True, runs.get(c.config_id, []), other_sizes(c, order, runs))[1] == FROM_PROFILE
            for c in configs
        )
        costs.append(EndCost(batch_size, precision, rounds, seconds, ids, compared=not alone, guessed=guessed))
    return sorted(costs, key=lambda cost: cost.seconds)


def rounds_to_decide(found: list[Comparison], repeats: Repeats) -> int:
    """The rounds the throughput comparisons ``found`` of one end still need to reach n = 3 paired rounds in the
    sitting (a fixed count below 3: its count); 0 where auto has decided them."""
    target = MIN_RUNS_FOR_INTERVAL if repeats.auto else min(MIN_RUNS_FOR_INTERVAL, repeats.runs)
    needed = [
        0 if repeats.auto and c.decided else max(0, target - (c.leading.now.n if c.leading else 0)) for c in found
    ]
    return max(needed, default=target)


def ends_line(costs: list[EndCost], seconds_left: float | None) -> str:
    """How long until the ends are decided here, in the order the matrix takes them: ``both ends decided in ≈ 12
    min: bs 32 3 rounds ≈ 4 min, bs 256 3 rounds ≈ 8 min``, or with ``seconds_left`` (None: no budget) too few for
    one, what is left undecided and why; "" where no end has two frameworks to compare."""
    costs = [cost for cost in costs if cost.compared]
    if not costs:
        return ""
    spent, fitting, left_out = 0.0, [], []
    for cost in costs:
        if seconds_left is None or spent + cost.seconds <= seconds_left:
            spent += cost.seconds
            fitting.append(cost)
        else:
            left_out.append(cost)
    parts = [f"{cost.name} {cost.need()}" if cost.rounds else f"{cost.name} decided already" for cost in fitting]
    both = "both ends" if len(costs) == 2 else ("the end" if len(costs) == 1 else f"the {len(costs)} ends")
    if not left_out:
        return f"{both} decided in {about_minutes(spent)}: {', '.join(parts)}"
    after = f" after {', '.join(c.name for c in fitting)}" if fitting else ""
    undecided = ", ".join(f"{c.name} needs {c.need()}" for c in left_out)
    decided = f"{', '.join(parts)}; " if parts else ""
    left = left_words(max(0.0, seconds_left - spent)) if seconds_left is not None else ""
    return f"ends: {decided}left undecided: {undecided}; {left}{after}"


def about_minutes(seconds: float) -> str:
    """``≈ 17 min``, ``≈ 3.5 min``."""
    return f"≈ {minutes_figure(seconds)} min"


def left_words(seconds: float) -> str:
    """``6 min left``, ``1.5 min left``."""
    return f"{minutes_figure(max(0.0, seconds))} min left"


def minutes_figure(seconds: float) -> str:
    """Minutes to the tenth below ten, where a tenth is a run's share of a round, else whole: ``3.5``, ``4``, ``17``."""
    minutes = seconds / 60
    return f"{minutes:.0f}" if minutes >= 10 else f"{minutes:.1f}".removesuffix(".0")
