"""The "which to choose" scenarios: for each need, what the measured tables favour, by which figure."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from generator import fmt
from generator.aggregate import Summary, Table
from generator.codesize import SourceFile
from generator.i18n import _, translate
from generator.leads import FASTEST, LEANEST, QUICKEST_TO_COMPILE, Lead, lead_at, lead_text, throughput_leads
from generator.load import Loaded
from generator.machines import Machine
from generator.metrics import MEMORY_METRICS
from generator.stats import WITHIN_NOISE, Stats


@dataclass(frozen=True)
class Choice:
    """One scenario of the "which to choose" page and what the records favour for it."""

    scenario: str
    favoured: str
    evidence: str
    link: str


def _best(values: dict[str, float], lowest: bool = True) -> tuple[str, float]:
    """(display names of every framework tied for the best value, that value)."""
    target = min(values.values()) if lowest else max(values.values())
    return _(" and ").join(fmt.label(k) for k, v in values.items() if v == target), target


def _largest_batch_lead(table: Table, stats_of: Callable[[Summary], Stats | None]) -> Lead | None:
    """The lowest compiled-mode figure at the largest batch size where judged runs of two frameworks have one."""
    for batch_size in reversed(table.batch_sizes):
        lead = lead_at(table, batch_size, table.columns_in("compiled"), stats_of)
        if lead and lead.runner_up:
            return lead
    return None


def _lead_choice(
    scenario: str, lead: Lead, link: str, show: Callable[[Stats], str] | None = None, best: str = FASTEST
) -> Choice:
    """A choice from a lead: no favourite where the figures are within noise."""
    favoured = _("no clear favourite") if lead.status == WITHIN_NOISE else lead.leader
    return Choice(scenario, favoured, lead_text(lead, show, best), link)


def _seconds(stats: Stats) -> str:
    return fmt.spread(stats, digits=1, unit="s")


def _mib(stats: Stats) -> str:
    return fmt.spread(stats, 1 / fmt.MIB, 0, "MiB")


def measured_choices(tables: list[Table], machines: dict[str, Machine]) -> list[Choice]:
    """Speed, start-up and memory scenarios, one set per machine and setting (out-of-the-box tables)."""
    found = []
    for table in tables:
        machine = machines.get(table.machine_id)
        where = f"{machine.device if machine else table.machine_id}, {table.setting.dataset}"
        table_leads = throughput_leads(table)
        if table_leads:
            for scenario, lead in (
                (_("fast training at small batches (batch {batch}) on {where}"), table_leads[0]),
                (_("fast training at large batches (batch {batch}) on {where}"), table_leads[-1]),
            ):
                found.append(
                    _lead_choice(scenario.format(batch=lead.batch_size, where=where), lead, "results/speed.md")
                )
        compile_lead = _largest_batch_lead(table, lambda s: s.compile_seconds)
        if compile_lead:
            scenario = _("short start-up (compile time at batch {batch}) on {where}").format(
                batch=compile_lead.batch_size, where=where
            )
            found.append(_lead_choice(scenario, compile_lead, "results/speed.md", _seconds, QUICKEST_TO_COMPILE))
        for name in ("nvml_process_peak_bytes", "allocator_peak_bytes", "host_peak_rss_bytes"):
            memory_lead = _largest_batch_lead(table, lambda s, name=name: s.memory(name))
            if memory_lead:
                scenario = _("tight memory ({figure} at batch {batch}) on {where}").format(
                    figure=translate(MEMORY_METRICS[name][0]), batch=memory_lead.batch_size, where=where
                )
                found.append(_lead_choice(scenario, memory_lead, "results/memory.md", _mib, LEANEST))
                break
    return found


def other_choices(scores: dict[str, float], sources: list[SourceFile], snapshot: Loaded | None) -> list[Choice]:
    """Error messages, code size and Stack Overflow: one scenario each, where the records hold the figure."""
    found = []
    if scores:
        best, score = _best(scores, lowest=False)
        found.append(
            Choice(
                _("clear error messages"),
                best,
                _("mean probe score {score:.0%} of the maximum").format(score=score),
                "devex/debugging.md",
            )
        )
    totals: dict[str, int] = defaultdict(int)
    for s in sources:
        if s.lines is not None:
            totals[s.framework] += s.lines
    if sources and all(s.lines is not None for s in sources):
        best, lines = _best(totals)
        found.append(
            Choice(
                _("the least code to read"),
                best,
                _("{lines} lines (model + training step)").format(lines=lines),
                "devex/code-size.md",
            )
        )
    if snapshot:
        questions = {
            tag: m["value"]
            for tag in ("pytorch", "tensorflow", "jax")
            if (m := snapshot.record["sources"].get("stackoverflow", {}).get(tag, {}).get("total_questions"))
            and m["status"] == "ok"
            and m["value"] is not None
        }
        if questions:
            best, count = _best(questions, lowest=False)
            found.append(
                Choice(
                    _("the most Stack Overflow questions to search"),
                    best,
                    _("{count:,} questions tagged ({date})").format(count=count, date=snapshot.record["date"]),
                    "beyond/community.md",
                )
            )
    return found
