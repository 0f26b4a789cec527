"""Which runs were made beside a competitor: a run alone in its sitting is not judged.

A machine's speed can change between sittings under one fingerprint: on these 2-core VMs a whole session ran a third
slower than the one before it. The matrix interleaves the frameworks (``runners.order``), which guards a comparison
only among runs made together, so a run made in a sitting where no other framework of its comparison ran (a
framework added on another day: ``runners matrix --frameworks jax``) is shown but never judged. A sitting is a
stretch of one comparison's judged runs, taken by start, in which each run starts less than ``SITTING_GAP`` after
the latest finish before it.

Shared by the generator (``generator.records.flags``: such runs are flagged ``LONE``) and the runners
(``runners.comparisons``: the matrix runs again, beside a competitor, what is undecided), so both judge the same runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from fractions import Fraction

#: a pause between runs this long or longer starts a new sitting (a matrix's runs follow each other within seconds,
#: and a repeat round comes back to a configuration within minutes)
SITTING_GAP_HOURS = 1
SITTING_GAP = timedelta(hours=SITTING_GAP_HOURS)


def sittings(competitors: Sequence[Sequence[dict]]) -> list[list[tuple[int, int]]]:
    """The sittings of ``competitors``' run records (each competitor's runs at one batch size, mode and precision),
    in time order: each a list of (the competitor's position, the run's position in its runs)."""
    timed = sorted(
        (datetime.fromisoformat(record["started_at"]), datetime.fromisoformat(record["finished_at"]), side, index)
        for side, runs in enumerate(competitors)
        for index, record in enumerate(runs)
    )
    found: list[list[tuple[int, int]]] = []
    latest_finish: datetime | None = None
    for started, finished, side, index in timed:
        if latest_finish is None or started - latest_finish >= SITTING_GAP:
            found.append([])
        found[-1].append((side, index))
        latest_finish = finished if latest_finish is None else max(latest_finish, finished)
    return found


def made_alone(competitors: Sequence[Sequence[dict]]) -> list[dict]:
    """The run records of ``competitors`` (each one's judged runs at one batch size, mode and precision) made in a
    sitting that holds no run of another competitor; none when fewer than two competitors ran."""
    if sum(1 for runs in competitors if runs) < 2:
        return []
    return [
        competitors[side][index]
        for sitting in sittings(competitors)
        if len({side for side, _index in sitting}) == 1
        for side, index in sitting
    ]


def runs_per_sitting(competitors: Sequence[Sequence[dict]]) -> list[list[int]]:
    """How many runs each of ``competitors`` (each one's judged runs at one batch size, mode and precision) has in
    each sitting that holds two competitors or more, in time order: the runs a verdict pools (a lone sitting's are
    never judged)."""
    shared = [sitting for sitting in sittings(competitors) if len({side for side, _index in sitting}) > 1]
    return [[sum(1 for side, _index in sitting if side == k) for sitting in shared] for k in range(len(competitors))]


def unequal_shares(counts: Sequence[Sequence[int]]) -> bool:
    """Whether runs counted per sitting (``runs_per_sitting``) fall in two sittings or more in shares that differ
    between the competitors: then their pooled figures carry part of whatever changed between the sittings, more of
    it for the one measured mostly in one sitting."""
    shares = {tuple(Fraction(n, sum(spread)) for n in spread) for spread in counts if sum(spread)}
    return len(shares) > 1
