"""The "which to choose" scenarios: for each need, what the measured tables favour, by which figure.

A measured scenario favours a framework only where its lead is decided (``Lead.decided``: n ≥ 3 clean runs each,
95 % intervals apart); otherwise it says "no verdict (n = 1)" or "within noise (n = 3)" and favours no one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from fwbench.frameworks import FRAMEWORKS, REGISTRY, label
from fwbench.stats import Stats
from generator.i18n import N_
from generator.message import AND, Joined, Message, Spread, Text
from generator.records.aggregate import Summary, Table
from generator.records.codesize import SourceFile
from generator.records.identity import FP32, PRECISION_WORDS
from generator.records.load import Loaded
from generator.records.machines import Machine
from generator.records.metrics import MEMORY_METRICS, MIB
from generator.verdicts.leads import (
    FASTEST,
    LEANEST,
    QUICKEST_TO_COMPILE,
    Lead,
    lead_at,
    lead_text,
    lead_verdict,
    throughput_leads,
)


@dataclass(frozen=True)
class Choice:
    """One scenario of the "which to choose" page and what the records favour for it (worded where shown)."""

    scenario: Text
    favoured: Text
    evidence: Text
    link: str
    decided: bool = True  # False where the records favour no one: ``favoured`` then says why (shown plain)


def _best(values: dict[str, float], lowest: bool = True) -> tuple[Joined, float]:
    """(display names of every framework tied for the best value, that value)."""
    target = min(values.values()) if lowest else max(values.values())
    return Joined(tuple(label(k) for k, v in values.items() if v == target), AND), target


def _largest_batch_lead(table: Table, stats_of: Callable[[Summary], Stats | None]) -> Lead | None:
    """The lowest compiled-mode figure at the largest batch size where judged runs of two frameworks have one."""
    for batch_size in reversed(table.batch_sizes):
        lead = lead_at(table, batch_size, table.columns_in("compiled"), stats_of)
        if lead and lead.runner_up:
            return lead
    return None


def _lead_choice(
    scenario: Message, lead: Lead, link: str, show: Callable[[Stats], Spread] | None = None, best: str = FASTEST
) -> Choice:
    """A choice from a lead: its leader where the lead is decided, else the verdict that favours no one."""
    favoured = lead.leader if lead.decided else lead_verdict(lead)
    return Choice(scenario, favoured, lead_text(lead, show, best), link, lead.decided)


def _seconds(stats: Stats) -> Spread:
    return Spread(stats, digits=1, unit="s")


def _mib(stats: Stats) -> Spread:
    return Spread(stats, 1 / MIB, 0, "MiB")


def measured_choices(tables: list[Table], machines: dict[str, Machine]) -> list[Choice]:
    """Speed, start-up and memory scenarios, one set per machine and setting (out-of-the-box tables)."""
    found = []
    for table in tables:
        machine = machines.get(table.machine_id)
        precision = table.setting.precision  # named where it is not strict FP32, the CPU profiles' own
        words = () if precision == FP32 else (Message(PRECISION_WORDS.get(precision, precision)),)
        where = Joined((machine.device if machine else table.machine_id, Message(table.setting.dataset), *words))
        table_leads = throughput_leads(table)
        if table_leads:
            scenarios = [(N_("fast training at small batches (batch {batch}) on {where}"), table_leads[0])]
            if len(table_leads) > 1:  # a table of one batch size has no large batch to speak of
                scenarios.append((N_("fast training at large batches (batch {batch}) on {where}"), table_leads[-1]))
            for scenario, lead in scenarios:
                found.append(
                    _lead_choice(
                        Message(scenario, {"batch": lead.batch_size, "where": where}), lead, "results/speed.md"
                    )
                )
        compile_lead = _largest_batch_lead(table, lambda s: s.compile_seconds)
        if compile_lead:
            scenario = Message(
                N_("short start-up (compile time at batch {batch}) on {where}"),
                {"batch": compile_lead.batch_size, "where": where},
            )
            found.append(_lead_choice(scenario, compile_lead, "results/speed.md", _seconds, QUICKEST_TO_COMPILE))
        for name in ("nvml_process_peak_bytes", "allocator_peak_bytes", "host_peak_rss_bytes"):
            memory_lead = _largest_batch_lead(table, lambda s, name=name: s.memory(name))
            if memory_lead:
                scenario = Message(
                    N_("tight memory ({figure} at batch {batch}) on {where}"),
                    {"figure": Message(MEMORY_METRICS[name][0]), "batch": memory_lead.batch_size, "where": where},
                )
                found.append(_lead_choice(scenario, memory_lead, "results/memory.md", _mib, LEANEST))
                break
    return found


def other_choices(scores: dict[str, float], sources: list[SourceFile], snapshot: Loaded | None) -> list[Choice]:
    """Error messages, code size and Stack Overflow: one scenario each, where the records hold the figure. A
    framework's Stack Overflow questions are those of its own tag, the first of its registry entry's."""
    found = []
    if scores:
        best, score = _best(scores, lowest=False)
        found.append(
            Choice(
                Message(N_("clear error messages")),
                best,
                Message(N_("mean probe score {score:.0%} of the maximum"), {"score": score}),
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
                Message(N_("the least code to read")),
                best,
                Message(N_("{lines} lines (model + training step)"), {"lines": lines}),
                "devex/code-size.md",
            )
        )
    if snapshot:
        tagged = snapshot.record["sources"].get("stackoverflow", {})
        questions = {
            fw: m["value"]
            for fw in FRAMEWORKS
            if (m := tagged.get(REGISTRY[fw].stackoverflow_tags[0], {}).get("total_questions"))
            and m["status"] == "ok"
            and m["value"] is not None
        }
        if questions:
            best, count = _best(questions, lowest=False)
            found.append(
                Choice(
                    Message(N_("the most Stack Overflow questions to search")),
                    best,
                    Message(
                        N_("{count:,} questions tagged ({date})"), {"count": count, "date": snapshot.record["date"]}
                    ),
                    "beyond/community.md",
                )
            )
    return found
