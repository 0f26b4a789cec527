"""2 Environment and method: the machines' provenance, the model each framework built, the protocol, how figures
are judged, the precision policies (``data/precision_recipes.json``) and the parity checks
(``data/parity_checks.json``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fwbench.frameworks import FRAMEWORKS, label
from generator.data_text import load_data
from generator.i18n import N_, _, list_separator
from generator.records.aggregate import Table
from generator.records.identity import RESNET18, version_key, workload_of
from generator.records.machines import Machine
from generator.site import Page
from generator.views import text_format
from generator.views.gpu_stack import gpu_stack
from generator.views.harness_table import harness_grid
from generator.views.markdown_table import Grid
from generator.views.sitedata import SiteData
from generator.views.table_view import device_title, setting_label

PAGE = Page("method.md", "method.md.j2", N_("2 Environment and method"), None, 2.0)


def model_grid(site: SiteData) -> tuple[Grid | None, list[int]]:
    """The ResNet-18 each framework recorded (frameworks as columns) and the distinct parameter counts (the
    transformer's model is on its own page)."""
    models: dict[str, set[tuple[str, int, float]]] = {}
    for run in site.results.runs:
        model = run.record.get("model")
        if model and workload_of(run.record) == RESNET18:
            models.setdefault(run.record["framework"]["name"], set()).add(
                (model["name"], model["trainable_params"], model["flops_per_image"])
            )
    if not models:
        return None, []
    present = [fw for fw in FRAMEWORKS if fw in models] + sorted(set(models) - set(FRAMEWORKS))
    rows = [
        [_("model"), *(list_separator().join(sorted({n for n, _, _ in models[fw]})) for fw in present)],
        [
            _("trainable parameters"),
            *(list_separator().join(f"{p:,}" for p in sorted({p for _, p, _ in models[fw]})) for fw in present),
        ],
        [
            _("forward GFLOP per image"),
            *(list_separator().join(f"{f / 1e9:.4f}" for f in sorted({f for _, _, f in models[fw]})) for fw in present),
        ],
    ]
    counts = sorted({p for found in models.values() for _, p, _ in found})
    return Grid(["", *(label(fw) for fw in present)], rows), counts


@dataclass(frozen=True)
class MachineSection:
    """One machine as the method page shows it: its heading, its GPU stack, and the packages of each table's runs."""

    machine: Machine
    title: str
    stack: str | None
    packages: list[tuple[str, list[str]]]  # (the table's setting, ``torch 2.11.0`` for each package its runs used)


def table_packages(table: Table) -> list[str]:
    """``name version`` (several versions comma-separated) for every package the table's runs recorded."""
    found: dict[str, set[str]] = {}
    for run in table.runs:
        for name, version in ((run.record.get("software") or {}).get("packages") or {}).items():
            if version:
                found.setdefault(name, set()).add(version)
    return [f"{name} {', '.join(sorted(versions, key=version_key))}" for name, versions in found.items()]


def machine_section(site: SiteData, machine: Machine) -> MachineSection:
    """The machine's heading, GPU stack and, per table of its runs (the versions profile's included), the packages
    those runs used."""
    tables = [t for t in site.all_tables if t.machine_id == machine.machine_id]
    return MachineSection(
        machine,
        device_title(machine, machine.machine_id),
        gpu_stack(machine.hardware) if machine.is_gpu else None,
        [(setting_label(t.setting), packages) for t in tables if (packages := table_packages(t))],
    )


def precision_grid(recipes: dict[str, Any]) -> Grid:
    """What each precision policy does in each framework (``data/precision_recipes.json``): a row per policy."""
    rows = [
        [
            f"`{policy}`",
            text_format.cell(entry["summary"]),
            *(text_format.breakable_cell(entry[fw]) for fw in FRAMEWORKS if fw in entry),
        ]
        for policy, entry in recipes["policies"].items()
    ]
    named = [fw for fw in FRAMEWORKS if all(fw in entry for entry in recipes["policies"].values())]
    return Grid(
        [_("precision"), _("what it means"), *(label(fw) for fw in named)], rows, text=tuple(range(len(named) + 2))
    )


def context(site: SiteData) -> dict[str, Any]:
    """The method page's context."""
    grid, counts = model_grid(site)
    return {
        "machines": [machine_section(site, m) for m in site.machines],
        "model": grid,
        "parameter_counts": counts,
        "parity": load_data("parity_checks.json"),
        "harness": harness_grid(site),
        "precision": precision_grid(recipes := load_data("precision_recipes.json")),
        "bf16_differences": recipes["bf16_differences"],
    }
