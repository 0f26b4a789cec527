"""CPython feature releases the support windows are measured against.

The dates are those of each 3.x.0 final release as its release-schedule PEP records them: python.org cannot be
reached from where snapshots are made here, so they are written down, each with its source, not fetched. A release
whose date is not written down still gets its first-wheel dates; only its lag in days stays uncollected.
"""

from __future__ import annotations

from datetime import date

#: CPython 3 minor -> (3.x.0 release date or None, the PEP that records it)
RELEASES: dict[int, tuple[date | None, str]] = {
    10: (date(2021, 10, 4), "https://peps.python.org/pep-0619/"),
    11: (date(2022, 10, 24), "https://peps.python.org/pep-0664/"),
    12: (date(2023, 10, 2), "https://peps.python.org/pep-0693/"),
    13: (date(2024, 10, 7), "https://peps.python.org/pep-0719/"),
    14: (date(2025, 10, 7), "https://peps.python.org/pep-0745/"),
    15: (None, "https://peps.python.org/pep-0790/"),
}
