"""5 Which to choose: each need beside what the measured tables favour, by which figure."""

from __future__ import annotations

from typing import Any

from generator.i18n import N_
from generator.site import Page
from generator.verdicts.choices import EVEN_WITHIN
from generator.views.sitedata import SiteData

PAGE = Page("choose.md", "choose.md.j2", N_("5 Which to choose"), None, 5.0)


def context(site: SiteData) -> dict[str, Any]:
    """The choose page's context: scenarios from out-of-the-box tables, probe scores, code size, the snapshot."""
    return {"choices": site.choices, "even_within": EVEN_WITHIN}
