"""2 Environment and method: the machines' provenance, the model each framework built, the protocol, how figures
are judged, and the parity checks (from ``data/parity_checks.json``)."""

from __future__ import annotations

from typing import Any

from fwbench.frameworks import FRAMEWORKS, label
from generator.grid import Grid
from generator.i18n import N_, _
from generator.page import Page
from generator.sitedata import SiteData, load_data

PAGE = Page("method.md", "method.md.j2", N_("2 Environment and method"), None, 2.0)


def model_grid(site: SiteData) -> tuple[Grid | None, list[int]]:
    """The model each framework recorded (frameworks as columns) and the distinct parameter counts."""
    models: dict[str, set[tuple[str, int, float]]] = {}
    for run in site.results.runs:
        model = run.record.get("model")
        if model:
            models.setdefault(run.record["framework"]["name"], set()).add(
                (model["name"], model["trainable_params"], model["flops_per_image"])
            )
    if not models:
        return None, []
    present = [fw for fw in FRAMEWORKS if fw in models] + sorted(set(models) - set(FRAMEWORKS))
    rows = [
        [_("model"), *(", ".join(sorted({n for n, _, _ in models[fw]})) for fw in present)],
        [
            _("trainable parameters"),
            *(", ".join(f"{p:,}" for p in sorted({p for _, p, _ in models[fw]})) for fw in present),
        ],
        [
            _("forward GFLOP per image"),
            *(", ".join(f"{f / 1e9:.4f}" for f in sorted({f for _, _, f in models[fw]})) for fw in present),
        ],
    ]
    counts = sorted({p for found in models.values() for _, p, _ in found})
    return Grid(["", *(label(fw) for fw in present)], rows), counts


def context(site: SiteData) -> dict[str, Any]:
    """The method page's context."""
    grid, counts = model_grid(site)
    return {
        "machines": site.machines,
        "model": grid,
        "parameter_counts": counts,
        "parity": load_data("parity_checks.json"),
    }
