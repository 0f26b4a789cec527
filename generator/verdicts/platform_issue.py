"""A known platform issue's size: how many times faster its workaround trains, or slower the setting that
reproduces its cause, where the runs can tell.

Each configuration measured out of the box and with the issue's tuning (``records.platform_issues.Pair``) gives the
ratio of the two throughputs with its 95 % interval (``stats.ratio_interval``), from n ≥ 3 clean runs of each; the
issue's size is stated only from such ratios, and only as a speed-up (a slow-down, for a reproduction) where every
interval lies above 1×. Machines never pool: each machine's configurations give that machine's size (``sizes``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from fwbench.stats import ratio_interval
from generator.i18n import N_, Nn_
from generator.message import Message, Text
from generator.records.platform_issues import Pair

#: how a size counts its configurations: a workaround's, and a reproduction's
SIZE, SIZE_PLURAL = Nn_(
    "{span} faster with the workaround (95 % CI {low:.1f}–{high:.1f}×; {n} configuration, n ≥ {runs} each)",
    "{span} faster with the workaround (95 % CI {low:.1f}–{high:.1f}×; {n} configurations, n ≥ {runs} each)",
)
SLOWER, SLOWER_PLURAL = Nn_(
    "{span} slower with the setting (95 % CI {low:.1f}–{high:.1f}×; {n} configuration, n ≥ {runs} each)",
    "{span} slower with the setting (95 % CI {low:.1f}–{high:.1f}×; {n} configurations, n ≥ {runs} each)",
)


@dataclass(frozen=True)
class Size:
    """An issue's measured size in words (worded where shown), and whether the records decide it."""

    text: Text
    decided: bool
    machine_id: str | None = None  # the machine it was measured on (``sizes``)


def _runs(pair: Pair) -> int:
    """The smaller run count of the pair's two throughput figures."""
    return min(pair.plain_rate.n, pair.tuned_rate.n)


def pair_interval(pair: Pair) -> tuple[float, float] | None:
    """The 95 % interval of how many times faster the workaround trains (slower the reproduction); None unless both
    configurations have clean runs, n ≥ 3 of each (``stats.ratio_interval``)."""
    if not (pair.plain.judgeable and pair.tuned.judgeable):
        return None
    return ratio_interval(*pair.effect)


def _span(low: float, high: float) -> str:
    return f"{low:.1f}×" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}–{high:.1f}×"


def pair_text(pair: Pair) -> Text:
    """One configuration's ratio: ``3.1× (95 % CI 2.9–3.3×)``, or ``no verdict (n = 1)``."""
    interval = pair_interval(pair)
    if interval is None:
        return Message(N_("no verdict (n = {n})"), {"n": _runs(pair)})
    low, high = interval
    return Message(N_("{ratio:.1f}× (95 % CI {low:.1f}–{high:.1f}×)"), {"ratio": pair.ratio, "low": low, "high": high})


def size(pairs: list[Pair]) -> Size | None:
    """The issue's size on one machine (``sizes`` splits by machine) over the configurations measured with n ≥ 3
    clean runs each way (a configuration with fewer, or older records, is shown with its own "no verdict" and left
    out), decided only where every one of their intervals lies above 1×; None when no configuration is measured
    both ways."""
    if not pairs:
        return None
    judged = [(p, i) for p in pairs if (i := pair_interval(p))]
    if not judged:
        return Size(Message(N_("no verdict (n = {n})"), {"n": min(_runs(p) for p in pairs)}), False)
    pairs = [p for p, _ in judged]  # the configurations measured n ≥ 3 each way; the others' rows say why not
    runs = min(_runs(p) for p in pairs)
    low, high = min(i[0] for _, i in judged), max(i[1] for _, i in judged)
    if low <= 1:
        return Size(Message(N_("within noise (n = {n})"), {"n": runs}), False)
    span = _span(min(p.ratio for p in pairs), max(p.ratio for p in pairs))
    values = {"span": span, "low": low, "high": high, "n": len(pairs), "runs": runs}
    one, many = (SLOWER, SLOWER_PLURAL) if pairs[0].reproduces else (SIZE, SIZE_PLURAL)
    return Size(Message(one, values, many), True)


def sizes(pairs: list[Pair]) -> list[Size]:
    """The issue's size on each machine that measured it both ways (``size`` over that machine's configurations),
    by machine id: machine fingerprints never pool, so one machine's clear result is never hidden by another's
    noise. Empty when no configuration is measured both ways."""
    machines = sorted({p.machine_id for p in pairs})
    return [
        dataclasses.replace(size([p for p in pairs if p.machine_id == m]), machine_id=m)  # type: ignore[arg-type]
        for m in machines
    ]
