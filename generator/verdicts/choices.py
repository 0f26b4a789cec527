"""The "which to choose" scenarios: for each need, what the measured tables favour, by which figure.

A measured scenario favours a framework only where its lead is decided (``Lead.decided``: the two best
configurations' runs, paired by rounds, put it ahead in one sitting or more; ``fwbench.decision``), and says "in one
sitting" where that is all it rests on; otherwise it gives the verdict ("about equal", "undecided at n = 2",
"sittings disagree") and favours no one. A figure without runs (probe scores, code lines, questions) favours a
framework only ahead by more than EVEN_WITHIN.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from fwbench.frameworks import FRAMEWORKS, REGISTRY, label
from fwbench.run_figures import MEMORY_PEAKS, compile_measurable
from fwbench.stats import Stats
from generator.i18n import N_, Nn_
from generator.message import AND, Joined, Message, Spread, Text, and_list, labelled, parts
from generator.records.aggregate import Summary, Table
from generator.records.codesize import SourceFile
from generator.records.flags import FLAGGED_RUNS
from generator.records.identity import BF16, CACHE_WORDS, FP32, PRECISION_WORDS
from generator.records.load import Loaded
from generator.records.machines import Machine, machine_title, no_bf16_isa
from generator.records.metrics import MEMORY_METRICS, MIB
from generator.records.probes import ProbeScores
from generator.verdicts.leads import (
    FASTEST,
    LEANEST,
    QUICKEST_TO_COMPILE,
    Lead,
    RecordFigure,
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


#: a figure that no runs give a noise to (a probe score, a count of code lines or of questions) names a leader only
#: when it beats the next best by more than this fraction of the smaller one: closer than 5 % (about 9 of 170
#: lines, or 3 points of a 60 % score) the lead turns on a wrapped call, an import or one rubric point
EVEN_WITHIN = 0.05


def _best(values: dict[str, float], lowest: bool = True) -> tuple[Joined, float]:
    """(display names of every framework tied for the best value, that value)."""
    target = min(values.values()) if lowest else max(values.values())
    return Joined(tuple(label(k) for k, v in values.items() if v == target), AND), target


def _ordered(values: dict[str, float], lowest: bool) -> list[tuple[str, float]]:
    """(framework, value) from the best value to the worst, ties in the registry's order."""
    rank = {fw: i for i, fw in enumerate(FRAMEWORKS)}
    return sorted(values.items(), key=lambda item: (item[1] if lowest else -item[1], rank.get(item[0], len(rank))))


def about_even(values: dict[str, float], lowest: bool = True) -> bool:
    """Whether the best of ``values`` is within EVEN_WITHIN of the next best (always, for fewer than two)."""
    ordered = [value for _, value in _ordered(values, lowest)]
    if len(ordered) < 2:
        return True
    best, second = ordered[:2]
    smaller, larger = sorted((best, second))
    if smaller <= 0:  # no ratio to a zero: even only when both are zero
        return larger <= 0
    return larger / smaller - 1 <= EVEN_WITHIN


def _figures(values: dict[str, float], msgid: str, lowest: bool) -> Joined:
    """Every framework's figure from the best: ``JAX 71%, TensorFlow 61% and PyTorch 60%``."""
    ordered = _ordered(values, lowest)
    return and_list([Message(msgid, {"framework": label(fw), "value": value}) for fw, value in ordered])


def _figure_choice(scenario: Message, values: dict[str, float], lowest: bool, evidence: Text, link: str) -> Choice:
    """A choice read from one figure per framework (no runs, no noise): its best framework where it leads by more
    than EVEN_WITHIN, else "about even" and no one favoured."""
    if about_even(values, lowest):
        return Choice(scenario, Message(N_("about even")), evidence, link, decided=False)
    return Choice(scenario, _best(values, lowest)[0], evidence, link)


def _probe_choice(scores: ProbeScores) -> Choice:
    """Clear error messages by both probe scores, each named: the one the debugging page ranks (without the
    silently cast probes) and the one with every probe. A framework is favoured only where both name it; where
    they differ the choice turns on whether a documented silent cast counts against a framework: "split", the two
    scores beside it."""
    scenario, link = Message(N_("clear error messages")), "devex/debugging.md"
    ranked, every = dict(scores.without_cast), dict(scores.with_cast)
    each = Nn_("{n} probe each", "{n} probes each")  # the same probes for every framework (``ProbeScores``)
    evidence = Message(
        N_(
            "mean probe score without the silently cast probes ({ranked}, the debugging page's first score): "
            "{without}; with every probe ({scored}): {every}"
        ),
        {
            "ranked": Message(each[0], {"n": max(scores.ranked.values())}, each[1]),
            "without": _figures(ranked, N_("{framework} {value:.0%}"), lowest=False),
            "scored": Message(each[0], {"n": max(scores.scored.values())}, each[1]),
            "every": _figures(every, N_("{framework} {value:.0%}"), lowest=False),
        },
    )
    by_ranked, by_every = (_figure_choice(scenario, v, False, evidence, link) for v in (ranked, every))
    if by_ranked.favoured == by_every.favoured:
        return by_ranked
    return Choice(scenario, Message(N_("split")), evidence, link, decided=False)


def _largest_batch_lead(table: Table, stats_of: Callable[[Summary], Stats | None], figure: RecordFigure) -> Lead | None:
    """The lowest compiled-mode figure at the largest batch size where judged runs of two frameworks have one, judged
    on each run's ``figure`` paired by rounds."""
    for batch_size in reversed(table.batch_sizes):
        lead = lead_at(table, batch_size, table.columns_in("compiled"), stats_of, figure)
        if lead and lead.runner_up:
            return lead
    return None


def _lead_choice(
    scenario: Message, lead: Lead, link: str, show: Callable[[Stats], Spread] | None = None, best: str = FASTEST
) -> Choice:
    """A choice from a lead: its leader where the lead is decided (saying so where it rests on one sitting), else
    the verdict that favours no one."""
    if lead.decided:
        favoured = lead.leader if lead.replicated else Message(N_("{leader}, in one sitting"), {"leader": lead.leader})
    else:
        favoured = lead_verdict(lead)
    return Choice(scenario, favoured, lead_text(lead, show, best), link, lead.decided)


def _seconds(stats: Stats) -> Spread:
    return Spread(stats, digits=1, unit="s")


def _mib(stats: Stats) -> Spread:
    return Spread(stats, 1 / MIB, 0, "MiB")


#: a figure of a configuration as one cache state's runs have it: (its part of those runs, True for warm) -> stats
CachedFigure = Callable[[Summary, bool], Stats | None]


def _beside(
    table: Table, batch_size: int, stats_of: CachedFigure, show: Callable[[Stats], Spread], warm: bool
) -> Text | None:
    """Every framework's figure at ``batch_size`` from the judged runs with warm (``warm``) or cold caches, lowest
    first, labelled with the state: ``cold caches: JAX at 6.8 s (n=1), …``; None where none has one."""
    found = [
        (table.column_label(c), stats)
        for c in table.columns_in("compiled")
        if (s := table.at(c, batch_size)) and s.judgeable and (stats := stats_of(s, warm))
    ]
    figures = [
        Message(N_("{framework} at {figure}"), {"framework": name, "figure": show(stats)})
        for name, stats in sorted(found, key=lambda pair: pair[1].mean)
    ]
    return labelled(Message(CACHE_WORDS[warm]), and_list(figures)) if figures else None


def _compile_below_noise(table: Table, batch_size: int, warm: bool) -> Text | None:
    """The frameworks at ``batch_size`` whose every compile time with warm (``warm``) or cold caches fell within
    their steps' noise (``Summary.compile_below_noise``): measured, too short to state, so absent from the lead."""
    names = [
        table.column_label(c)
        for c in table.columns_in("compiled")
        if (s := table.at(c, batch_size))
        and s.judgeable
        and s.compile_below_noise(warm)
        and (s.warm_compile_seconds if warm else s.compile_seconds) is None
    ]
    return Message(N_("below the step-time noise: {frameworks}"), {"frameworks": and_list(names)}) if names else None


#: what else a cached choice names at its lead's batch size and cache state: (table, batch size, warm) -> text
CachedNote = Callable[[Table, int, bool], Text | None]


def _compile_figure(record: dict) -> float | None:
    """A run's compile time where it stands above its steps' noise (``compile_measurable``), as the figures count it."""
    timing = record.get("timing") or {}
    return timing["compile_seconds"] if compile_measurable(timing) else None


def _memory_figure(name: str) -> RecordFigure:
    """A run's memory figure ``name`` (bytes), where it has one."""
    return lambda record: (record.get("memory") or {}).get(name)


def _cached_choice(
    table: Table,
    scenario: str,
    values: dict[str, Text],
    stats_of: CachedFigure,
    figure: RecordFigure,
    show: Callable[[Stats], Spread],
    best: str,
    link: str,
    note: CachedNote | None = None,
) -> Choice | None:
    """A choice from a figure that includes compile work (a compile time, a whole-run memory peak), whose cold and
    warm runs never pool: judged with warm caches, what users live with after a configuration's first run (its
    repeats can give n >= 3; only the first compiles cold), or with cold ones where no two frameworks have warm
    runs; ``note``'s text where it has one, then every framework's figure of the other state beside it. None where
    neither state has a lead."""
    for warm in (True, False):
        lead = _largest_batch_lead(table.cached(warm), lambda s, warm=warm: stats_of(s, warm), figure)
        if lead:
            words = Message(scenario, {**values, "batch": lead.batch_size, "caches": Message(CACHE_WORDS[warm])})
            choice = _lead_choice(words, lead, link, show, best)
            noted = note(table, lead.batch_size, warm) if note else None
            beside = _beside(table.cached(not warm), lead.batch_size, stats_of, show, not warm)
            added = [text for text in (noted, beside) if text]
            return dataclasses.replace(choice, evidence=parts([choice.evidence, *added])) if added else choice
    return None


def measured_choices(tables: list[Table], machines: dict[str, Machine]) -> list[Choice]:
    """Speed, start-up and memory scenarios, one set per machine and setting (out-of-the-box tables)."""
    found = []
    for table in tables:
        machine = machines.get(table.machine_id)
        precision = table.setting.precision  # named where it is not strict FP32, the CPU profiles' own
        words = () if precision == FP32 else (Message(PRECISION_WORDS.get(precision, precision)),)
        # named as the speed and memory pages head its table: two VMs that report the same CPU differ by fingerprint
        where = Joined((machine_title(machine, table.machine_id), Message(table.setting.dataset), *words))
        # beside a bf16 figure, a CPU that lists no bf16 instructions: the record's fact, not a cause
        isa = no_bf16_isa(machine) if precision == BF16 else None
        table_leads = throughput_leads(table)
        if table_leads:
            scenarios = [(N_("fast training at small batches (batch {batch}) on {where}"), table_leads[0])]
            if len(table_leads) > 1:  # a table of one batch size has no large batch to speak of
                scenarios.append((N_("fast training at large batches (batch {batch}) on {where}"), table_leads[-1]))
            for scenario, lead in scenarios:
                choice = _lead_choice(
                    Message(scenario, {"batch": lead.batch_size, "where": where}), lead, "results/speed.md"
                )
                found.append(dataclasses.replace(choice, evidence=parts([choice.evidence, isa])) if isa else choice)
        start_up = _cached_choice(
            table,
            N_("short start-up (compile time at batch {batch}, {caches}) on {where}"),
            {"where": where},
            lambda s, warm: s.warm_compile_seconds if warm else s.compile_seconds,
            _compile_figure,
            _seconds,
            QUICKEST_TO_COMPILE,
            "results/speed.md",
            _compile_below_noise,
        )
        found += [start_up] if start_up else []
        for name in MEMORY_PEAKS:
            memory = _cached_choice(
                table,
                N_("tight memory ({figure} at batch {batch}, {caches}) on {where}"),
                {"figure": Message(MEMORY_METRICS[name][0]), "where": where},
                lambda s, _warm, name=name: s.memory(name),
                _memory_figure(name),
                _mib,
                LEANEST,
                "results/memory.md",
            )
            if memory:
                found.append(memory)
                break
    return found


def _why_no_choice(summaries: list[Summary]) -> Message:
    """Why a machine's out-of-the-box configurations give no choice: their runs are all flagged (shown, never
    judged), none finished, or fewer than two frameworks have clean runs to compare."""
    if any(s.judgeable for s in summaries):
        return Message(N_("fewer than two frameworks have clean runs to compare"))
    flags = sorted({flag for s in summaries for flag in s.flags})
    if not flags:
        return Message(N_("no run finished"))
    return Message(N_("{runs}, shown but never judged"), {"runs": and_list([Message(FLAGGED_RUNS[f]) for f in flags])})


def gpus_without_choices(tables: list[Table], machines: dict[str, Machine]) -> list[Text]:
    """Each GPU machine whose out-of-the-box ``tables`` give no scenario of ``measured_choices``, with its runs per
    configuration and why (``NVIDIA H200 (GPU): n = 1 per configuration; older records, shown but never judged``),
    so that a page of CPU rows says what the GPU records hold; a GPU with judged runs gets its rows instead."""
    found: list[Text] = []
    for machine in (m for m in machines.values() if m.is_gpu):
        own = [t for t in tables if t.machine_id == machine.machine_id]
        summaries, title = [s for t in own for s in t.summaries], machine_title(machine, machine.machine_id)
        if not summaries:
            found.append(labelled(title, Message(N_("no out-of-the-box run"))))
        elif not measured_choices(own, machines):
            counts = sorted({s.n_ok for s in summaries})
            n = str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
            runs = Message(N_("n = {n} per configuration"), {"n": n})
            found.append(labelled(title, parts([runs, _why_no_choice(summaries)])))
    return found


def other_choices(scores: ProbeScores, sources: list[SourceFile], snapshot: Loaded | None) -> list[Choice]:
    """Error messages, code size and Stack Overflow: one scenario each, where the records hold the figure. A
    framework's Stack Overflow questions are those of its own tag, the first of its registry entry's."""
    found = []
    if scores:
        found.append(_probe_choice(scores))
    totals: dict[str, int] = defaultdict(int)
    for s in sources:
        if s.lines is not None:
            totals[s.framework] += s.lines
    if sources and all(s.lines is not None for s in sources):
        evidence = Message(
            N_("{lines} lines of code (model + training step)"),
            {"lines": _figures(dict(totals), N_("{framework} {value}"), lowest=True)},
        )
        found.append(
            _figure_choice(Message(N_("the least code to read")), dict(totals), True, evidence, "devex/code-size.md")
        )
    if snapshot:
        tagged = snapshot.record["sources"].get("stackoverflow", {})
        questions = {
            fw: m["value"]
            for fw in FRAMEWORKS
            if REGISTRY[fw].stackoverflow_tags  # torchax has no tag of its own
            and (m := tagged.get(REGISTRY[fw].stackoverflow_tags[0], {}).get("total_questions"))
            and m["status"] == "ok"
            and m["value"] is not None
        }
        if questions:
            evidence = Message(
                N_("questions tagged ({date}): {counts}"),
                {
                    "counts": _figures(questions, N_("{framework} {value:,}"), lowest=False),
                    "date": snapshot.record["date"],
                },
            )
            scenario = Message(N_("the most Stack Overflow questions to search"))
            found.append(_figure_choice(scenario, questions, False, evidence, "beyond/community.md"))
    return found
