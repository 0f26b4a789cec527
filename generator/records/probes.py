"""The debugging probes as the site reads them: readable outcomes, each framework's score with and without the
silently cast probes, and the bug × framework matrix."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from fwbench.frameworks import FRAMEWORKS
from fwbench.probe_outcome import SILENTLY_CAST, cast_evidence
from generator.i18n import N_, _, translate
from generator.records.load import Loaded

#: outcome category -> (what a reader sees, how it reads: good, bad or neutral). A raised error is the good
#: outcome of a planted bug; a bug that runs on unreported is the bad one.
OUTCOMES = {
    "error": (N_("error raised"), "good"),
    "no_error": (N_("no error raised"), "bad"),
    SILENTLY_CAST: (N_("silently cast"), "neutral"),
    "crash": (N_("process crashed"), "bad"),
    "timeout": (N_("timed out"), "bad"),
}
#: bug id -> what was planted
BUGS = {
    "dense_shape": N_("a dense layer fed the wrong number of features"),
    "dtype": N_("float64 data fed to a float32 model"),
    "loss_shape": N_("a loss computed on mis-shaped targets"),
    "nan": N_("a NaN in the loss"),
}


def outcome_label(category: str) -> str:
    """The category in words (``no_error`` -> ``no error raised``)."""
    return translate(OUTCOMES[category][0]) if category in OUTCOMES else category.replace("_", " ")


def outcome_tone(category: str) -> str:
    """``good``, ``bad`` or ``neutral``: how the outcome reads for someone debugging."""
    return OUTCOMES.get(category, ("", "bad"))[1]


def bug_title(bug: str, tooling: bool | None) -> str:
    """What was planted, with the NaN tooling's state where the probe has one."""
    title = translate(BUGS[bug]) if bug in BUGS else bug.replace("_", " ")
    if tooling is None:
        return title
    return (_("{bug}, NaN tooling on") if tooling else _("{bug}, NaN tooling off")).format(bug=title)


@dataclass(frozen=True, eq=False)
class ProbeScores(Mapping[str, float]):
    """Mean probe score per framework (fraction of the maximum) with the silently cast probes left out.

    That mapping is the figure the site ranks. A silently cast probe (a float64 input the framework cast
    to float32 as documented, see fwbench.probe_outcome) shows no message to judge, so it is scored apart:
    ``with_cast`` holds the means over every probe, ``scored`` and ``cast`` count each framework's scored
    and silently cast probes, ``evidence`` says what in each silently cast record (by path) shows the cast.
    """

    without_cast: dict[str, float]
    with_cast: dict[str, float]
    scored: dict[str, int]
    cast: dict[str, int]
    evidence: dict[str, str]

    def __getitem__(self, framework: str) -> float:
        return self.without_cast[framework]

    def __iter__(self):
        return iter(self.without_cast)

    def __len__(self) -> int:
        return len(self.without_cast)

    def category(self, probe: Loaded) -> str:
        """The probe's outcome category: ``silently cast`` or its recorded outcome."""
        return SILENTLY_CAST if str(probe.path) in self.evidence else probe.record["outcome"]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def probe_scores(probes: list[Loaded]) -> ProbeScores:
    """Each framework's mean probe score with and without its silently cast probes (see ProbeScores)."""
    fractions: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    evidence = {}
    for p in probes:
        why = cast_evidence(p.record)
        if why:
            evidence[str(p.path)] = why
        score = p.record["score"]
        if score["max"]:
            fractions[p.record["framework"]["name"]].append((score["total"] / score["max"], why is not None))
    kept = {fw: [f for f, cast in v if not cast] for fw, v in fractions.items()}
    return ProbeScores(
        without_cast={fw: _mean(v) for fw, v in kept.items() if v},
        with_cast={fw: _mean([f for f, _ in v]) for fw, v in fractions.items()},
        scored={fw: len(v) for fw, v in fractions.items()},
        cast={fw: sum(cast for _, cast in v) for fw, v in fractions.items()},
        evidence=evidence,
    )


def probe_order(probe: Loaded) -> tuple:
    """Sort key: bug, tooling, framework order, mode."""
    r = probe.record
    rank = FRAMEWORKS.index(r["framework"]["name"]) if r["framework"]["name"] in FRAMEWORKS else len(FRAMEWORKS)
    return r["bug"], str(r["tooling"]), rank, r["framework"]["mode"]


@dataclass(frozen=True)
class BugRow:
    """One planted bug (with its tooling state) on one machine: its probes by (framework, mode)."""

    bug: str
    tooling: bool | None
    probes: dict[tuple[str, str], Loaded]

    @property
    def title(self) -> str:
        """What was planted, in words."""
        return bug_title(self.bug, self.tooling)


def bug_rows(probes: list[Loaded]) -> list[BugRow]:
    """One row per (bug, tooling) of one machine's probes, in probe order."""
    rows: dict[tuple[str, bool | None], dict[tuple[str, str], Loaded]] = {}
    for p in sorted(probes, key=probe_order):
        fw = p.record["framework"]
        rows.setdefault((p.record["bug"], p.record["tooling"]), {})[(fw["name"], fw["mode"])] = p
    return [BugRow(bug, tooling, found) for (bug, tooling), found in rows.items()]
