"""``runners matrix --dry-run``: the plan a matrix would run here and how long it would take, with nothing run or
written.

The plan is the configurations in their order, the repeats policy and its cap, the environments that would be built,
and a time estimate per run (``runners.matrix.budget``: this machine's records of the configuration, else the profile's
guess), counting what earlier matrices finished as done, and, with auto repeats, no repeat of a comparison they
decided in this sitting: one that starts when the latest sitting is over (``fwbench.sittings.latest_over``) is a new
sitting, where every comparison runs again, in rounds numbered after the earlier ones (``store.first_repeat``). It
says how long until the ends are decided, as the matrix does when it starts (``end_costs.ends_line``).
"""

from __future__ import annotations

from pathlib import Path

from tabulate import tabulate

from fwbench.stats import MIN_RUNS_FOR_INTERVAL
from fwbench.timestamps import utc_clock
from runners.executors.boundary import Target
from runners.matrix.budget import FROM_PROFILE, Budget, expected_seconds, other_sizes
from runners.matrix.comparisons import Comparison, comparisons
from runners.matrix.end_costs import end_costs, ends_line
from runners.matrix.figures import THROUGHPUT
from runners.matrix.order import at_ends, labeller, order_line
from runners.matrix.pairs import DECISIVE
from runners.matrix.repeats import Repeats
from runners.matrix.store import first_repeat, ok_repeats, runs_here, start_here
from runners.measure.profiles import RunConfig


def preview(
    target: Target, order: list[RunConfig], out: Path, repeats: Repeats, budget: Budget, to_build: list[str]
) -> list[str]:
    """The dry run's lines for the matrix of ``order`` on ``target``, its records kept under ``out``; ``to_build``:
    the environments it would build first."""
    label = labeller(order)
    rows, first, later = [], [], []
    at_end = at_ends(order)
    # the runs to make in the matrix's order: at the ends (at_ends), first runs then repeats, then the others
    sequence = {part: ([], []) for part in (True, False)}
    # per comparison, each competitor's repeats still to make, by repeat: what auto needs at the least
    needed: dict[tuple, dict[tuple, dict[int, float]]] = {}
    found = runs_here(order, out, target.machine_ids)
    start = start_here(target)
    standing = comparisons(order, found, repeats.runs, repeats.decides, repeats.limit, start)
    opening = first_repeat(found, start) if repeats.auto else 0  # the sitting's first round, as the matrix numbers it
    counted = {  # config id → its runs that count (fwbench.judged.counts)
        config.config_id: n
        for comparison in standing
        if comparison.figure is THROUGHPUT
        for competitor in comparison.ranked
        for config, n in zip(competitor.configs, competitor.counted, strict=True)
    }
    # auto repeats nothing of a configuration whose every comparison this machine's records decided already
    in_decided = set().union(*(comparison.config_ids() for comparison in standing if comparison.decided))
    in_undecided = set().union(*(comparison.config_ids() for comparison in standing if not comparison.decided))
    settled = in_decided - in_undecided if repeats.auto else set()
    for config in order:
        runs, others = found[config.config_id], other_sizes(config, order, found)
        done = sorted(r for r in ok_repeats(runs) if r == 0 or opening <= r < opening + repeats.limit)
        cold, source = expected_seconds(config, False, runs, others)
        warm, _ = expected_seconds(config, True, runs, others)
        first.append((0.0 if 0 in done else cold, source))
        count = counted.get(config.config_id, 0)
        to_make = [] if config.config_id in settled else repeats_to_make(done, count, repeats, opening)
        later += [warm] * len(to_make)
        comparison = needed.setdefault((at_end(config), config.mode, config.batch_size, config.precision), {})
        competitor = comparison.setdefault((config.framework, config.framework_version), {})
        # keyed by the repeat each would be if every run counted: what fewest_repeats reads the n from
        for made in range(len(to_make)):
            key = count + (0 if 0 in done else 1) + made
            competitor[key] = competitor.get(key, 0.0) + warm
        first_runs, repeat_runs = sequence[at_end(config)]
        first_runs += [] if 0 in done else [cold]
        repeat_runs += [] if repeats.auto else [warm] * len(to_make)
        made = count if repeats.auto else len(done)  # auto: the runs that count in the sitting, whatever their numbers
        rows.append([label(config), f"{made} of {repeats.runs}", f"{cold:.0f}", f"{warm:.0f}", source])
    # where a comparison counts warm runs alone (start-up, memory), the first run is not among its n
    warm_only = {(c.mode, c.batch_size, c.precision) for c in standing if c.figure.warm_only}
    dues = {  # per comparison, the repeats before auto can decide it, in the order they are made
        key: fewest_repeats(list(competitors.values()), cold_counts=tuple(key[1:]) not in warm_only)
        for key, competitors in needed.items()
    }
    fewest = [seconds for due in dues.values() for seconds in due]
    if repeats.auto:
        for (end, *_group), due in dues.items():
            sequence[end][1].extend(due)
    first_s = sum(seconds for seconds, _ in first)
    guessed = sum(1 for seconds, source in first if seconds and source == FROM_PROFILE)
    to_make = sum(1 for seconds, _ in first if seconds)
    machine = target.machine_ids[0]
    lines = [
        f"dry run: nothing runs and nothing is written; the records would go to {out / machine}/",
        order_line(order),
        tabulate(
            rows,
            headers=[
                "configuration",
                "runs in this sitting" if repeats.auto else "runs done",
                "cold s",
                "warm s",
                "expected from",
            ],
            colalign=("left", "right", "right", "right", "left"),
            disable_numparse=True,
        ),
        f"repeats: {repeats.describe()}",
        "environments to build first: " + ("; ".join(to_build) or "none"),
        estimate_line(first_s, to_make, len(order), guessed, earlier_sitting=opening > 0),
    ]
    if later and repeats.auto:
        lines.append(
            f"  then {minutes(sum(fewest))} to {minutes(sum(later))} more for {len(fewest)} to {len(later)} repeats "
            f"(a comparison needs n ≥ {MIN_RUNS_FOR_INTERVAL} each; the most if none is decided sooner)"
        )
    elif later:
        lines.append(f"  then {minutes(sum(later))} more for {len(later)} repeats")
    renewed = [comparison for comparison in standing if comparison.new_sitting]
    if repeats.auto and renewed:
        earlier = comparisons(order, found, repeats.runs, repeats.decides, repeats.limit)
        lines.append(new_sitting_line(renewed, earlier, found, opening))
    if settled:
        decided = sum(1 for comparison in standing if comparison.decided)
        lines.append(
            f"  {decided} of {len(standing)} comparisons are decided by this machine's records already: the "
            f"{len(settled)} configurations whose every comparison is decided run no more repeats"
        )
    middle = bool(sequence[False][0] or sequence[False][1])  # runs to make besides the ends
    repeated = f"their repeats{f' to n = {MIN_RUNS_FOR_INTERVAL}' if repeats.auto else ''}"
    steps = [
        ("the first runs at the end batch sizes" if middle else "the first runs", sequence[True][0]),
        (repeated, sequence[True][1]),
        ("the other first runs", sequence[False][0]),
        (repeated, sequence[False][1]),
    ]
    if ends := ends_line(end_costs(order, found, standing, repeats, target.not_installed), budget.seconds_left()):
        lines.append(ends)
    undecided = repeats.auto and any(not comparison.decided for comparison in standing)
    lines.append(
        budget_line(
            budget, steps, "more repeats run while a comparison is undecided and there is room" if undecided else ""
        )
    )
    return lines


def new_sitting_line(
    renewed: list[Comparison], earlier: list[Comparison], found: dict[str, list[dict]], first: int
) -> str:
    """What a matrix starting a new sitting does: ``renewed``, its comparisons whose sitting is new, and ``earlier``,
    every comparison as the latest sitting of the records ``found`` stands (in the same order, without a start)."""
    again = {(c.mode, c.batch_size, c.precision, c.figure.name) for c in renewed}
    before = [c for c in earlier if (c.mode, c.batch_size, c.precision, c.figure.name) in again]
    decided = sum(1 for c in before if c.decided and c.status in DECISIVE)
    day = max(record["finished_at"] for records in found.values() for record in records)[:10]
    return (
        f"  a new sitting: the earlier one ({day}) decided {decided} of {len(before)} comparisons; this one runs "
        f"again, from repeat {first}, until its own rounds decide"
    )


def estimate_line(seconds: float, to_make: int, runs: int, guessed: int, earlier_sitting: bool = False) -> str:
    """The first round's estimate: ``seconds`` for the ``to_make`` of its ``runs`` not made yet, ``guessed`` of
    them at the profile's guess; ``earlier_sitting``: the first runs belong to an earlier sitting, and every round of
    this one is a repeat."""
    if not to_make and earlier_sitting:
        return f"estimate: first round: its {runs} runs were made in an earlier sitting; this one's rounds are repeats"
    if not to_make:
        return f"estimate: first round: nothing to make (all {runs} runs done)"
    guess = f", {guessed} of them at the profile's guess: no record of them on this machine" if guessed else ""
    return f"estimate: first round {minutes(seconds)} ({to_make} of {runs} runs to make{guess})"


def repeats_to_make(done: list[int], counted: int, repeats: Repeats, first: int = 0) -> list[int]:
    """The repeats of a configuration still to make, from the repeats ``done`` here and how many of its runs count
    in the sitting: a fixed count's every repeat not done; auto's, those that bring its counted runs to the cap if each
    counts, within the limit (the first run, when not made, counts as one); ``first``: the sitting's first round
    (``store.first_repeat``)."""
    free = [r for r in range(max(first, 1), first + repeats.limit) if r not in done]
    if not repeats.auto:
        return free
    return free[: max(0, repeats.runs - counted - (0 if 0 in done else 1))]


def fewest_repeats(competitors: list[dict[int, float]], cold_counts: bool = True) -> list[float]:
    """The fewest repeats that can decide one comparison, in the order they are made (each a run's expected
    seconds), from each competitor's repeats still to make (repeat → seconds): none with a single competitor;
    otherwise every competitor runs until n = 2 (no comparison is decided before n = 3, so none is skipped), then the
    two that cost least reach n = 3, as when the leader and the runner-up run first in the last round and decide,
    and the third's repeat is not made. Without ``cold_counts`` (a warm figure) the first run is not among the n."""
    if len(competitors) < 2:
        return []
    last = MIN_RUNS_FOR_INTERVAL - (1 if cold_counts else 0)
    early = [seconds for repeats in competitors for r, seconds in sorted(repeats.items()) if r < last]
    cheapest = sorted(repeats.get(last, 0.0) for repeats in competitors)[:2]  # 0.0: made already
    return early + [seconds for seconds in cheapest if seconds]


def budget_line(budget: Budget, steps: list[tuple[str, list[float]]], after: str = "") -> str:
    """What the budget allows of the runs to make, in the order the matrix makes them: ``steps``, each what they are
    and the expected seconds of each of its runs; ``after``: what follows when all of them fit."""
    limits = budget.left()
    if not limits:
        return "budget: none (--budget MINUTES stops the matrix before a run that would end past it)"
    left = min(limits.values())
    shown = [f"{budget.minutes:g} min"] if "minutes" in limits else []
    if "deadline" in limits:
        shown.append(f"until {utc_clock(budget.deadline)} ({max(limits['deadline'], 0) / 60:.1f} min from now)")
    head = f"budget: {', '.join(shown)}"
    spent, fits = 0.0, []
    for what, runs in steps:
        fit = 0
        while fit < len(runs) and spent + runs[fit] <= left:
            spent, fit = spent + runs[fit], fit + 1
        if fit < len(runs):
            fits.append(f"{fit} of {what} ({len(runs)})")
            return f"{head}; it has room for {', '.join(fits)} (run again to go on)"
        fits += [f"{what} ({len(runs)})"] if runs else []
    room = f"it has room for {', '.join(fits)}" if fits else "nothing is left to make"
    return f"{head}; {room}" + (f"; {after}" if after else "")


def minutes(seconds: float) -> str:
    """``≈ 11.2 min``."""
    return f"≈ {seconds / 60:.1f} min"
