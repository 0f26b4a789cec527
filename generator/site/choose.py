"""5 Which to choose: one compact table of needs against frameworks (accelerators first), then every scenario machine
by machine with the figure that decides it, folded, and what the GPU records hold where they give no row."""

from __future__ import annotations

from typing import Any

from generator.i18n import N_
from generator.site import Page
from generator.verdicts.choices import EVEN_WITHIN, gpus_without_choices
from generator.verdicts.registry_choices import registry_choices
from generator.views.choose_table import COLUMNS, need_rows
from generator.views.sitedata import SiteData
from generator.views.text_format import label
from generator.views.verdict_text import text

PAGE = Page("choose.md", "choose.md.j2", N_("5 Which to choose"), None, 5.0)


def context(site: SiteData) -> dict[str, Any]:
    """The choose page's context: scenarios from out-of-the-box tables, probe scores, code size, the snapshot; the
    GPU machines, and those whose records give no row, with why."""
    choices = site.choices + registry_choices(site.snapshot)
    return {
        "columns": [label(fw) for fw in COLUMNS],
        "needs": need_rows(site, choices),
        "choices": choices,
        "even_within": EVEN_WITHIN,
        "gpus": sum(1 for m in site.machines if m.is_gpu),
        "gpus_without": [text(line) for line in gpus_without_choices(site.out_of_box, site.machine_by_id)],
    }
