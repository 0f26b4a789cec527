"""3.2 Memory: every memory figure the records hold, per machine and setting, with what each one counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.i18n import N_, _, translate
from generator.records.aggregate import Summary, Table
from generator.records.identity import CACHE_WORDS
from generator.records.metrics import MEMORY_METRICS, MIB, charted_metric, metrics_of
from generator.site import Page
from generator.spacing import fill
from generator.views import cell_text, chart_data
from generator.views.caveats import PageCaveats
from generator.views.markdown_table import Grid, batch_grid
from generator.views.record_text import recorded
from generator.views.sitedata import SiteData
from generator.views.table_view import TableView, chart_title, setting_word, views

PAGE = Page("results/memory.md", "memory.md.j2", N_("3.2 Memory"), N_("3 Results"), 3.2)


@dataclass(frozen=True)
class MemoryTable:
    """One table's grids per mode and metric, each compiler-cache state apart, its chart, and what its host peak
    counts."""

    view: TableView
    grids: dict[str, dict[str, Grid]]  # mode -> metric title, with its caches -> grid
    chart: str | None
    host_bases: list[str]
    falling: list[str]  # ``JAX compiled, cold caches: 8,824 MiB at batch 32, 6,264 MiB at batch 256``
    phases: dict[str, dict[str, Grid]]  # mode -> title -> the NVML peak of the first step and of the timed epochs


#: a run's phases as ``memory.phases`` names them, with what a reader reads
PHASES = {"first_step": N_("first step"), "timed": N_("timed epochs")}
#: the title of the table of the NVML peaks in ``memory.phases``
PHASE_TITLE = N_("NVML peak by phase")
#: the compiler-cache states (True: warm) a table is split by, warm first: what users live with after a
#: configuration's first run, and what Which to choose judges. No memory figure pools the two: every one a record
#: holds is a peak over the whole run, its first step's compile included (runners/measure/record.py: the samplers start
#: before the trainer is built, the allocator's peak is the larger of its two phases'), and the records show the
#: states apart where they hold both (the committed CPU records: the host peak RSS 110–210 MiB higher cold for JAX
#: and TensorFlow, 330–590 for PyTorch, whose compiler workers take 333–537 MiB cold and at most 30 warm; the GPU
#: figures have no warm run yet, and follow the same rule). The
#: timed phase of ``memory.phases`` alone starts after the compile, but it shares a cell with the first step's, so
#: its table is split with it.
STATES = (True, False)


def cache_states(table: Table) -> list[bool]:
    """The compiler-cache states (True: warm) that the table's successful runs found, warm first."""
    return [warm for warm in STATES if any(s.cached(warm).n_ok for s in table.summaries)]


def cached_title(title: str, warm: bool) -> str:
    """A figure's title, in the language being written, with the state of its runs' caches, in words."""
    return fill(_("{figure}, {caches}"), figure=title, caches=translate(CACHE_WORDS[warm]))


def falling_peaks(table: Table, warm: bool) -> list[str]:
    """Columns whose NVML process peak, over the runs with warm (``warm``) or cold caches, is lower at a larger
    batch size than at a smaller one: the smallest batch's figure beside the largest's."""
    found = []
    for column in table.columns:
        peaks = [
            (bs, st.mean)
            for bs in table.batch_sizes
            if (s := table.at(column, bs)) and (st := s.cached(warm).memory("nvml_process_peak_bytes"))
        ]
        if len(peaks) > 1 and peaks[-1][1] < max(p for _bs, p in peaks[:-1]):
            (first, high), (last, low) = max(peaks[:-1], key=lambda p: p[1]), peaks[-1]
            found.append(
                fill(
                    _("{column} {mode}, {caches}: {high:,.0f} MiB at batch {first}, {low:,.0f} MiB at batch {last}"),
                    column=table.column_label(column),
                    mode=setting_word(column.mode),
                    caches=translate(CACHE_WORDS[warm]),
                    high=high / MIB,
                    first=first,
                    low=low / MIB,
                    last=last,
                )
            )
    return found


def _phase_cell(summary: Summary | None) -> str:
    """The mean NVML peak of each phase, in MiB, over the configuration's counted runs that recorded phases."""
    phases = [p for r in summary.counted if (p := (r.get("memory") or {}).get("phases"))] if summary else []
    if not phases:
        return "—"
    lines = []
    for phase, words in PHASES.items():
        found = [p[phase]["nvml_peak_bytes"] for p in phases if p.get(phase) and p[phase].get("nvml_peak_bytes")]
        if found:
            lines.append(f"{sum(found) / len(found) / MIB:,.0f}<br><small>{translate(words)}</small>")
    return "<br>".join(lines) or "—"


def phase_grids(table: Table, warm: bool) -> dict[str, Grid]:
    """Mode -> the NVML peak by phase over the runs with warm (``warm``) or cold caches, where a run of the table
    recorded one (``memory.phases``; a CPU's records hold the section with no NVML figure in it)."""
    recorded = [p for r in table.runs for p in ((r.record.get("memory") or {}).get("phases") or {}).values()]
    if not any(p and p.get("nvml_peak_bytes") for p in recorded):
        return {}
    return {
        mode: batch_grid(table, mode, lambda s: cell_text.cached_cell(s, warm, _phase_cell)) for mode in table.modes
    }


def host_bases(table: Table) -> list[str]:
    """What the table's host peak RSS figures count, as the records say (``memory.host_peak_basis``); records
    that do not say (older ones) are named as such."""
    said = {(r.record.get("memory") or {}).get("host_peak_basis") for r in table.runs if r.record.get("memory")}
    bases = sorted(recorded(b) for b in said if b)
    if None in said:
        bases.append(_("not stated by older records, which may count the benchmark's own process only"))
    return bases


def _memory_table(site: SiteData, view: TableView) -> MemoryTable:
    table = view.table
    names, states = metrics_of(table.summaries), cache_states(table)
    grids = {
        mode: {
            cached_title(translate(MEMORY_METRICS[name][0]), warm): batch_grid(
                table, mode, lambda s, n=name, w=warm: cell_text.cached_memory_cell(s, n, w)
            )
            for name in names
            for warm in states
        }
        for mode in table.modes
    }
    phases: dict[str, dict[str, Grid]] = {mode: {} for mode in table.modes}
    for warm in states:
        for mode, grid in phase_grids(table, warm).items():
            phases[mode][cached_title(translate(PHASE_TITLE), warm)] = grid
    charted = charted_metric(table.summaries)
    chart = None
    if charted:  # the first state shown: warm where any run found warm caches
        path = f"charts/memory-{table.machine_id}-{table.setting.slug}.png"
        chart = site.add_chart(
            path,
            lambda: chart_data.per_batch(
                table,
                lambda s: s.cached(states[0]).memory(charted),
                f"{cached_title(translate(MEMORY_METRICS[charted][0]), states[0])} (MiB)",
                1 / MIB,
                title=chart_title(view.machine, table),
            ),
        )
    bases = host_bases(table) if "host_peak_rss_bytes" in names else []
    falling = [line for warm in states for line in falling_peaks(table, warm)]
    return MemoryTable(view, grids, chart, bases, falling, phases if any(phases.values()) else {})


def context(site: SiteData) -> dict[str, Any]:
    """The memory page's context."""
    return {
        "metrics": {name: tuple(translate(text) for text in texts) for name, texts in MEMORY_METRICS.items()},
        "tables": (tables := [_memory_table(site, v) for v in views(site, site.out_of_box + site.tuned)]),
        "caveats": PageCaveats(t.view for t in tables),
    }
