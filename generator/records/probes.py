"""The debugging probes as the site reads them: today's apart from other versions', readable outcomes, the score
under the current rubric, each framework's score over the same probes with and without the silently cast ones,
and the bug × framework matrix."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from fwbench.frameworks import FRAMEWORKS
from fwbench.probe_outcome import (
    CAST_COMPUTED,
    CAST_WARNED,
    SILENTLY_CAST,
    cast_evidence,
    cast_evidence_parts,
    reports_planted_bug,
)
from generator.i18n import N_, _, translate
from generator.records.load import Loaded
from generator.spacing import fill

#: an error raised that does not report the planted bug (``reports_planted_bug``): it scores 0 like no error
ELSEWHERE = "error_elsewhere"
#: outcome category -> (what a reader sees, how it reads: good, bad or neutral). A raised error is the good
#: outcome of a planted bug; a bug that runs on unreported is the bad one.
OUTCOMES = {
    "error": (N_("error raised"), "good"),
    ELSEWHERE: (N_("error raised about something else"), "bad"),
    "no_error": (N_("no error raised"), "bad"),
    SILENTLY_CAST: (N_("silently cast"), "neutral"),
    "crash": (N_("process crashed"), "bad"),
    "timeout": (N_("timed out"), "bad"),
}
#: ``cast_evidence``'s wordings, marked for the catalogue (a test keeps them equal to fwbench's)
CAST_WORDS = {
    CAST_WARNED: N_("a warning said the {fed} input was cast to {model}"),
    CAST_COMPUTED: N_("no warning, but the step computed in {model}: {reported}"),
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


def cast_evidence_text(record: dict) -> str | None:
    """``cast_evidence`` in the language being written: what shows that the probe's input was silently cast."""
    found = cast_evidence_parts(record)
    if found is None:
        return None
    wording, values = found
    return fill(translate(CAST_WORDS[wording]) if wording in CAST_WORDS else wording, **values)


def bug_title(bug: str, tooling: bool | None) -> str:
    """What was planted, with the NaN tooling's state where the probe has one."""
    title = translate(BUGS[bug]) if bug in BUGS else bug.replace("_", " ")
    if tooling is None:
        return title
    return fill(_("{bug}, NaN tooling on") if tooling else _("{bug}, NaN tooling off"), bug=title)


def todays(probes: list[Loaded]) -> list[Loaded]:
    """The probes that ran in the interpreter fwbench runs in (today's versions; no ``environment``), not those of
    another version's environment (``runners probes --versions``), which the article's 4.1 rows read."""
    return [p for p in probes if not p.record.get("environment")]


def probe_score(record: dict) -> dict:
    """The record's score under the current rubric: an error that does not report the planted bug
    (``reports_planted_bug``) scores 0 of the same maximum, derived on read for records scored before the rule."""
    score = record["score"]
    if record["outcome"] != "error" or reports_planted_bug(record) is not False:
        return score
    return {**score, "total": 0.0, "parts": dict.fromkeys(score["parts"], 0.0)}


#: what identifies one probe across frameworks: the machine, the bug, its tooling state and the mode
ProbeKey = tuple[str, str, str, str]


def probe_key(probe: Loaded) -> ProbeKey:
    """The probe's place in the set every framework is scored over (its framework left out)."""
    r = probe.record
    return probe.machine_id, r["bug"], str(r["tooling"]), r["framework"]["mode"]


@dataclass(frozen=True, eq=False)
class ProbeScores(Mapping[str, float]):
    """Mean probe score per framework (fraction of the maximum), every framework over the same probes.

    A probe counts only where every framework ran it (same machine, bug, tooling and mode), so that no framework
    is averaged over fewer or other probes than another; ``left_out`` counts each framework's probes that others
    did not run. The mapping, the figure the site ranks, also leaves out every probe that any framework silently
    cast (a float64 input cast to float32 as documented, see fwbench.probe_outcome): that probe shows no message
    to judge in one framework, so it is judged in none. ``with_cast`` holds the means with those probes;
    ``scored`` and ``ranked`` count the probes of each mean (the same for every framework), ``cast`` each
    framework's silently cast probes, ``evidence`` what in each silently cast record (by path) shows the cast.
    """

    without_cast: dict[str, float]
    with_cast: dict[str, float]
    scored: dict[str, int]
    ranked: dict[str, int]
    cast: dict[str, int]
    left_out: dict[str, int]
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

    def shown_category(self, probe: Loaded) -> str:
        """The category the debugging page shows: ``category``, with an error that does not report the planted
        bug told apart from one that does (``ELSEWHERE``)."""
        category = self.category(probe)
        return ELSEWHERE if category == "error" and reports_planted_bug(probe.record) is False else category


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def probe_scores(probes: list[Loaded]) -> ProbeScores:
    """Each framework's mean score over today's probes that every framework ran, with and without the probes
    any framework silently cast (see ProbeScores)."""
    fraction: dict[str, dict[ProbeKey, float]] = defaultdict(dict)
    evidence, cast_keys, cast = {}, set(), Counter()
    for p in todays(probes):
        score = probe_score(p.record)
        if not score["max"]:
            continue
        fraction[p.record["framework"]["name"]][probe_key(p)] = score["total"] / score["max"]
        if why := cast_evidence(p.record):
            evidence[str(p.path)] = why
            cast_keys.add(probe_key(p))
            cast[p.record["framework"]["name"]] += 1
    shared = set.intersection(*map(set, fraction.values())) if fraction else set()
    kept = shared - cast_keys
    return ProbeScores(
        without_cast={fw: _mean([v[k] for k in kept]) for fw, v in fraction.items() if kept},
        with_cast={fw: _mean([v[k] for k in shared]) for fw, v in fraction.items() if shared},
        scored={fw: len(shared) for fw in fraction},
        ranked={fw: len(kept) for fw in fraction},
        cast={fw: cast[fw] for fw in fraction},
        left_out={fw: len(set(v) - shared) for fw, v in fraction.items()},
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
