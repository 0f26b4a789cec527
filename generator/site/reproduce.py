"""Appendix: how to reproduce — getting the code, the commands from the repository root, your own records beside
the published ones, how to send them by pull request, how a maintainer makes an ecosystem snapshot, and the commands
the run records say produced them (made portable: no other machine's paths)."""

from __future__ import annotations

from typing import Any

from generator.i18n import N_
from generator.site import Page
from generator.views import ecosystem
from generator.views.repository import command_line
from generator.views.sitedata import SiteData

PAGE = Page("appendix/reproduce.md", "reproduce.md.j2", N_("Reproduce"), N_("Appendix"), 92.0)
#: recorded commands shown in full; the rest are counted
SHOWN_COMMANDS = 50


def recorded_commands(site: SiteData) -> list[str]:
    """Distinct command lines stored in the run records, as they read from the repository root, each with the
    tuning variables it ran with."""
    return sorted(
        {
            command_line(r.record["command"], r.record["config"].get("tuning_environment") or {})
            for r in site.results.runs
            if r.record.get("command")
        }
    )


def context(site: SiteData) -> dict[str, Any]:
    """The reproduce page's context."""
    commands = recorded_commands(site)
    return {
        "repo_url": site.repo_url,
        "snapshot_commands": ecosystem.MAINTAINER_COMMANDS,
        "snapshot_fields": ecosystem.field_names(),
        "commands": commands[:SHOWN_COMMANDS],
        "more_commands": max(0, len(commands) - SHOWN_COMMANDS),
    }
