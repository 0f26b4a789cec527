"""Appendix: raw data — every table as CSV, every record as its command wrote it (one zip archive per kind: a
site may hold ten thousand records), and the skipped files."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

from generator.i18n import N_, _
from generator.records.load import Loaded
from generator.site import Page
from generator.views import downloads
from generator.views.sitedata import SiteData

PAGE = Page("appendix/raw-data.md", "raw_data.md.j2", N_("Raw data"), N_("Appendix"), 91.0)


def _downloads(site: SiteData) -> list[tuple[str, str]]:
    """(title, path) of each CSV download, registered with the site."""
    results = site.results
    files = {
        _("Every configuration, every statistic"): (
            "data/configurations.csv",
            downloads.summaries_csv(site.summaries, site.rules.tta_targets),
        ),
        _("Every run"): ("data/runs.csv", downloads.runs_csv(results.runs, results.root)),
        _("Debug probes"): ("data/probes.csv", downloads.probes_csv(results.probes)),
        _("Ecosystem snapshots"): ("data/ecosystem.csv", downloads.ecosystem_csv(results.snapshots)),
        _("Claims check"): ("data/claims.csv", downloads.claims_csv(site.all_claims)),
    }
    return [(title, site.add_file(path, text)) for title, (path, text) in files.items()]


def records_zip(items: list[Loaded], root: Path) -> bytes:
    """The record files byte for byte, under their names in the results directory, as one zip archive."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for item in items:
            archive.write(item.path, item.name_under(root))
    return buffer.getvalue()


def _records(site: SiteData) -> list[tuple[str, int, str | None]]:
    """(title, how many records, the archive's site path or None when there are none) per record kind."""
    results = site.results
    found = []
    for kind, title, items in (
        ("runs", _("Run records"), results.runs),
        ("probes", _("Probe records"), results.probes),
        ("ecosystem", _("Ecosystem snapshots"), results.snapshots),
        ("bisect", _("Release bisect reports"), results.bisects),
    ):
        path = None
        if items:  # the same bytes in every language: zipped once
            archive = site.neutral(f"records-{kind}.zip", lambda items=items: records_zip(items, results.root))
            path = site.add_file(f"data/records-{kind}.zip", archive)
        found.append((title, len(items), path))
    return found


def context(site: SiteData) -> dict[str, Any]:
    """The raw data page's context."""
    return {"downloads": _downloads(site), "records": _records(site), "skipped": site.results.skipped}
