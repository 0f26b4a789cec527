"""A lead must clear the harness's measured tolerance: what fwbench's trainers may add to a gap between frameworks,
measured by checking each against a minimal loop in its framework's own style (``fwbench.harness_checks``).

fwbench measures trainer_A ÷ trainer_B; each check measures r = trainer ÷ minimal loop for one framework. The gap
between the minimal loops is then (trainer_A ÷ trainer_B) × (r_B ÷ r_A), so a sitting's interval of A ÷ B is
multiplied by the factor r_B ÷ r_A and widened by the checks' own intervals, [B_low ÷ A_high, B_high ÷ A_low].
A lead stands on the sittings whose widened interval still clears ``MIN_EFFECT`` the same way ("widened"); where none
does, it is withheld ("within the harness's tolerance": undecided). Where either framework has no check at the
same device kind, precision, workload, size and harness digest, the verdict stands as it is and says that its
harness was not checked. The checks are found on the comparison's machine where it has them, and at its batch size,
else at the nearest one (``HarnessStanding`` names the checks used, their batch sizes with them).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace

from fwbench.decision import AHEAD, UNDECIDED, SittingDecision, Verdict, judged
from fwbench.gap import Gap
from fwbench.harness_checks import HarnessCheck
from fwbench.harness_standing import NOT_A_LEAD, NOT_CHECKED, WIDENED, WITHHELD, HarnessStanding


def check_for(
    checks: Iterable[HarnessCheck],
    framework: str,
    *,
    workload: str,
    device_kind: str,
    precision: str,
    digest: str | None,
    batch_size: int,
    machine_id: str | None = None,
    mode: str = "compiled",
    size: str | None = None,
) -> HarnessCheck | None:
    """The check of ``framework``'s trainer in ``mode`` at ``digest`` on ``device_kind`` at ``precision`` for
    ``workload`` at its named ``size`` (None: its default; a check that names no mode is of compiled mode): on
    ``machine_id`` where it has one, else on another machine of the kind; at ``batch_size``, else at the nearest (by
    ratio; the larger on a tie); of several there, the newest file's, and of its references (JAX's loops in linen and
    in NNX) the one the trainer falls furthest behind, the fastest idiomatic loop; None where none is."""
    found = [
        c
        for c in checks
        if (c.framework, c.mode or "compiled", c.workload, c.size, c.device_kind, c.precision, c.harness)
        == (framework, mode, workload, size, device_kind, precision, digest)
    ]
    if not found:
        return None
    return max(
        found,
        key=lambda c: (
            c.machine_id == machine_id,
            -abs(math.log(c.batch_size / batch_size)),
            c.batch_size,
            c.made_at,
            -c.ratio,
        ),
    )


def within_harness(verdict: Verdict, first: HarnessCheck | None, second: HarnessCheck | None) -> Verdict:
    """``verdict`` (first ÷ second) set against the two frameworks' checks, as the module's docstring says: a lead
    widened, or withheld (UNDECIDED) where no sitting it rests on still clears; any other verdict as it is."""
    if first is None or second is None:
        return replace(verdict, harness=HarnessStanding(NOT_CHECKED, first, second))
    (first_low, first_high), (second_low, second_high) = first.bounds, second.bounds
    factor = Gap(second.ratio / first.ratio, second_low / first_high, second_high / first_low)
    if verdict.outcome != AHEAD:
        return replace(verdict, harness=HarnessStanding(NOT_A_LEAD, first, second, factor))
    widened = {id(d): _widened(d, factor, verdict.leader) for d in verdict.rests_on}
    sittings = tuple(widened.get(id(d), d) for d in verdict.sittings)
    standing = tuple(d for d in widened.values() if d.outcome == AHEAD)
    if standing:
        widened_by = HarnessStanding(WIDENED, first, second, factor)
        return replace(verdict, rests_on=standing, sittings=sittings, harness=widened_by)
    return replace(
        verdict,
        outcome=UNDECIDED,
        leader=None,
        rests_on=(),
        sittings=sittings,
        harness=HarnessStanding(WITHHELD, first, second, factor),
    )


def _widened(decision: SittingDecision, factor: Gap, leader: int | None) -> SittingDecision:
    """A sitting's decision on its interval times ``factor``'s range: still AHEAD only where it clears the minimum
    effect for the same ``leader``, else UNDECIDED."""
    gap = Gap(decision.gap.ratio * factor.ratio, decision.gap.low * factor.low, decision.gap.high * factor.high)
    outcome, now_leader = judged(gap)
    clears = outcome == AHEAD and now_leader == leader
    ratio = decision.ratio * factor.ratio if decision.ratio is not None else None
    if not clears:
        return replace(decision, outcome=UNDECIDED, leader=None, gap=gap, ratio=ratio)
    return replace(decision, gap=gap, ratio=ratio)
