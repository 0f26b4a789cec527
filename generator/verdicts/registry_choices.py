"""The "which to choose" rows the ecosystem snapshot's PyPI figures decide: the smallest install, the widest platform
support, the fastest support of a new Python.

These figures come from no repeated runs, so no noise measures a margin: as for the other such rows
(``choices.EVEN_WITHIN``), a framework leads only by a margin stated beside the figures, else "about even".
"""

from __future__ import annotations

from fwbench.frameworks import FRAMEWORKS, label
from generator.i18n import N_
from generator.message import AND, Joined, Message
from generator.records import ecosystem as eco
from generator.records.load import Loaded
from generator.records.metrics import MIB
from generator.verdicts.choices import Choice, _figures, _ordered, about_even

#: a first wheel for a new Python this many days or fewer before another framework's is no lead: a lead shorter than
#: a month is no reason to choose a framework whose releases come months apart
PYTHON_EVEN_WITHIN_DAYS = 30


def _choice(scenario: str, values: dict[str, float], lowest: bool, even: bool, evidence: Message, link: str) -> Choice:
    if even:
        return Choice(Message(scenario), Message(N_("about even")), evidence, link, decided=False)
    best = _ordered(values, lowest)[0][0]
    return Choice(Message(scenario), Joined((label(best),), AND), evidence, link)


def smallest_install(snapshot: dict) -> Choice | None:
    """The smallest CPU stack to download, ahead by more than EVEN_WITHIN."""
    sizes = {
        fw: size / MIB
        for fw in FRAMEWORKS
        if (size := eco.stack_size(snapshot, fw, "cpu", "download_bytes")) is not None
    }
    if len(sizes) < 2:
        return None
    evidence = Message(
        N_("download of the whole CPU stack from PyPI for Linux x86-64 ({date}, MiB): {sizes}"),
        {"date": snapshot["date"], "sizes": _figures(sizes, N_("{framework} {value:,.0f}"), lowest=True)},
    )
    return _choice(N_("the smallest install"), sizes, True, about_even(sizes), evidence, "devex/toolchains.md")


def widest_platforms(snapshot: dict) -> Choice | None:
    """The most platforms with a wheel of every package an install needs; any platform more is a lead."""
    counts = {
        fw: sum(coverage.values())
        for fw in FRAMEWORKS
        if eco.binary_packages(snapshot, fw) and (coverage := eco.platform_coverage(snapshot, fw)) is not None
    }
    if len(counts) < 2:
        return None
    evidence = Message(
        N_(
            "platforms of the five (Linux x86-64 and aarch64, macOS arm64 and x86-64, Windows) with wheels of every "
            "package its install needs ({date}): {counts}"
        ),
        {"date": snapshot["date"], "counts": _figures(counts, N_("{framework} {value}"), lowest=False)},
    )
    ordered = [v for _, v in _ordered(counts, lowest=False)]
    return _choice(
        N_("the widest platform support"), counts, False, ordered[0] == ordered[1], evidence, "devex/toolchains.md"
    )


def fastest_new_python(snapshot: dict) -> Choice | None:
    """The shortest wait for wheels of the newest CPython whose release date the snapshot has, for every framework
    built per Python; a lead needs more than PYTHON_EVEN_WITHIN_DAYS."""
    frameworks = [fw for fw in FRAMEWORKS if eco.binary_packages(snapshot, fw)]
    for minor in reversed(eco.python_minors(snapshot)):
        lags = {fw: lag for fw in frameworks if (lag := eco.python_lag(snapshot, fw, minor)) is not None}
        if len(lags) == len(frameworks) >= 2:
            break
    else:
        return None
    ordered = [v for _, v in _ordered(lags, lowest=True)]
    evidence = Message(
        N_(
            "days from CPython 3.{minor}'s release to wheels of every package built per Python ({date}): {lags}; a "
            "lead needs more than {margin} days"
        ),
        {
            "minor": minor,
            "date": snapshot["date"],
            "lags": _figures(lags, N_("{framework} {value:+d}"), lowest=True),
            "margin": PYTHON_EVEN_WITHIN_DAYS,
        },
    )
    even = ordered[1] - ordered[0] <= PYTHON_EVEN_WITHIN_DAYS
    return _choice(N_("the fastest support of a new Python"), lags, True, even, evidence, "beyond/maintenance.md")


def registry_choices(snapshot: Loaded | None) -> list[Choice]:
    """The rows the snapshot's PyPI figures decide (none without them)."""
    if snapshot is None:
        return []
    rows = (smallest_install(snapshot.record), widest_platforms(snapshot.record), fastest_new_python(snapshot.record))
    return [row for row in rows if row is not None]
