"""The comparability rules of ``data/comparability.json``: when a measurement may be set beside the article's.

The rules' wording and parameters are data; the article's values they refer to are its setup in
``article_figures.json``. Each rule id has one check here, which names what breaks it (a problem: the row
is not comparable) or what it tolerates but a reader should know (a note, e.g. another GPU model beside an
ordering). What a row compares (``Evidence.kind``) decides what a rule asks: an absolute figure needs the article's
GPU model, an accuracy its learning-rate schedule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from fwbench.frameworks import label
from fwbench.stats import MIN_RUNS_FOR_INTERVAL
from generator.data_text import DATA_DIR, source_data
from generator.i18n import N_
from generator.message import OR, Joined, Message, Text, and_list, labelled, parenthesised
from generator.records.aggregate import Summary, Table
from generator.records.flags import FLAGGED_RUNS
from generator.records.identity import DEFAULT_PRECISION, FP32, precision_policy
from generator.records.machines import Machine

RULES_FILE = DATA_DIR / "comparability.json"
#: what a claims row compares (``Evidence.kind``): a figure in seconds, images/s or MB, which measures the hardware
#: too; an ordering or a ratio of figures measured alike, which another GPU model may still speak to; an accuracy,
#: which depends on the learning-rate schedule
ABSOLUTE, SCALE_FREE, ACCURACY = "absolute", "scale-free", "accuracy"


class RulesError(ValueError):
    """The rules file is malformed; the message names the file and the field."""


@dataclass(frozen=True)
class Rule:
    """One condition a verdict needs, with the differences it tolerates (texts filled in from the setup)."""

    id: str
    short: Message
    condition: Message
    tolerates: tuple[Message, ...]
    min_runs: int | None = None


@dataclass(frozen=True)
class Rules:
    """Every rule, in the file's order, and the time-to-accuracy targets."""

    about: Message
    rules: tuple[Rule, ...]
    tta_dataset: str
    tta_targets: tuple[float, ...]

    @property
    def min_runs(self) -> int:
        """Successful clean runs a configuration needs before it may enter a verdict."""
        return next(r.min_runs for r in self.rules if r.id == "repeats")


@dataclass(frozen=True)
class Check:
    """The outcome of the rules for one claims row."""

    conditions: tuple[Text, ...]  # the short names of the rules checked
    problems: tuple[Text, ...]  # why the row is not comparable; empty when it is
    notes: tuple[Text, ...]  # tolerated differences worth naming beside the verdict

    @property
    def comparable(self) -> bool:
        """True when no rule is broken."""
        return not self.problems


def _context(setup: dict[str, Any], rule: dict[str, Any]) -> dict[str, Any]:
    """The values a rule's texts may name: the article's setup, the rule's own parameters, and lists as text."""
    versions = setup.get("framework_versions", {})
    return {
        **setup,
        **rule,
        "batch_sizes_text": and_list([str(b) for b in setup["batch_sizes"]]),
        "framework_versions_text": and_list([f"{label(fw)} {v}" for fw, v in versions.items()]),
        **({"mode": Message(setup["mode"])} if isinstance(setup.get("mode"), str) else {}),  # the mode word translated
    }


def parse_rules(data: dict[str, Any], setup: dict[str, Any], source: str = str(RULES_FILE)) -> Rules:
    """Rules from the parsed file, their texts filled in from the article's ``setup``; RulesError when malformed."""
    try:
        rules = []
        for index, raw in enumerate(data["rules"]):
            where = f"rules[{index}]"
            if raw["id"] not in CHECKS:
                known = ", ".join(CHECKS)
                raise RulesError(f"{source}: field '{where}.id': unknown rule {raw['id']!r}; known: {known}")
            context = _context(setup, raw)
            rules.append(
                Rule(
                    id=raw["id"],
                    short=Message(raw["short"], context),
                    condition=Message(raw["condition"], context),
                    tolerates=tuple(Message(t, context) for t in raw["tolerates"]),
                    min_runs=raw.get("min_runs"),
                )
            )
        missing = set(CHECKS) - {r.id for r in rules}
        if missing:
            raise RulesError(f"{source}: field 'rules': no rule for {', '.join(sorted(missing))}")
        found = Rules(
            about=Message(data["about"]),
            rules=tuple(rules),
            tta_dataset=data["time_to_accuracy"]["dataset"],
            tta_targets=tuple(data["time_to_accuracy"]["targets"]),
        )
    except KeyError as exc:
        raise RulesError(f"{source}: missing field {exc}") from exc
    if not isinstance(found.min_runs, int) or found.min_runs < MIN_RUNS_FOR_INTERVAL:
        raise RulesError(
            f"{source}: field 'repeats.min_runs' must be an integer ≥ {MIN_RUNS_FOR_INTERVAL} "
            "(a 95 % interval needs that many runs)"
        )
    return found


def load_rules(setup: dict[str, Any]) -> Rules:
    """The rules of ``data/comparability.json`` with the article's ``setup`` filled in (worded where shown)."""
    return parse_rules(source_data(RULES_FILE.name), setup)


@dataclass(frozen=True)
class Evidence:
    """What a claims row reads: one machine's table, the (framework, batch size) configurations it uses
    (compiled mode), and what it compares (ABSOLUTE, SCALE_FREE or ACCURACY)."""

    machine: Machine
    table: Table
    needs: tuple[tuple[str, int], ...]
    kind: str = ABSOLUTE

    def cells(self) -> list[tuple[str, int, Summary | None]]:
        """(framework, batch size, summary or None when not run) for every configuration the row reads."""
        return [(fw, bs, self.table.cell(fw, "compiled", bs)) for fw, bs in self.needs]


def _where(framework: str, batch_size: int) -> Message:
    return Message(N_("{framework} at batch {batch}"), {"framework": label(framework), "batch": batch_size})


def _detailed(text: Text, detail: Text | None) -> Text:
    """``text (detail)``, or ``text`` alone without a detail."""
    return parenthesised(text, detail) if detail else text


def _naming(ev: Evidence, heading: Text, found: list[tuple[str, int, Text | None]]) -> Text:
    """``heading: PyTorch at batch 32 (detail), …`` for the (framework, batch size, detail) found; a row about one
    configuration says ``heading (detail)`` alone, so that rows sharing a reason read the same."""
    if len(ev.needs) == 1:
        return _detailed(heading, found[0][2])
    named = Joined(tuple(_detailed(_where(fw, bs), detail) for fw, bs, detail in found))
    return labelled(heading, named)


def _device(rule: Rule, setup: dict[str, Any], ev: Evidence) -> tuple[list[Text], list[Text]]:
    machine = ev.machine
    if not machine.hardware:
        return [Message(N_("this machine recorded no hardware (no successful run)"))], []
    kind = machine.hardware["device_kind"]
    if kind != setup["device_kind"]:
        return [
            Message(
                N_("{device}: a {kind}, not a {wanted}"),
                {"device": machine.device, "kind": kind.upper(), "wanted": setup["device_kind"].upper()},
            )
        ], []
    if setup["device_match"].lower() in machine.device.lower():
        return [], []
    other = Message(
        N_("another GPU: {device}, not the article's {article}"),
        {"device": machine.device, "article": setup["device_name"]},
    )
    if ev.kind == ABSOLUTE:
        return [labelled(other, Message(N_("an absolute figure on another GPU measures the hardware")))], []
    if ev.kind == SCALE_FREE:
        return [], [labelled(other, Message(N_("a scale-free claim, judged on any GPU")))]
    return [], [other]


#: a run whose record does not say which precision the framework ran (see ``_precision_gap``)
UNKNOWN_PRECISION = "unknown"
#: why a run's precision keeps it from the article -> the words of a row's reason; any other policy is named
PRECISION_GAPS = {
    FP32: N_("strict FP32, the article ran each framework's default precision"),
    UNKNOWN_PRECISION: N_("precision unknown: the record does not say which precision the framework ran"),
}


def _precision_gap(record: dict[str, Any]) -> str | None:
    """What keeps a run from the article's precision: None when it ran each framework's default and its record
    holds what the framework reported (``precision.flags``); FP32; UNKNOWN_PRECISION when the record has no
    precision section or no flags; else the policy it ran."""
    policy, section = precision_policy(record), record.get("precision")
    if policy == FP32:
        return FP32
    if not section or section.get("flags") is None:
        return UNKNOWN_PRECISION
    return None if policy == DEFAULT_PRECISION else policy


def _gap_text(gap: str) -> Message:
    if gap in PRECISION_GAPS:
        return Message(PRECISION_GAPS[gap])
    return Message(N_("{policy} precision, the article ran each framework's default precision"), {"policy": gap})


def _precision(rule: Rule, setup: dict[str, Any], ev: Evidence) -> tuple[list[Text], list[Text]]:
    """Each gap once: alone when every configuration that ran shares it, else naming those that have it."""
    ran = [(fw, bs, s) for fw, bs, s in ev.cells() if s is not None and s.n_ok]
    gaps: dict[str, list[tuple[str, int, Text | None]]] = {}
    for fw, bs, s in ran:
        for gap in sorted({g for rec in s.counted if (g := _precision_gap(rec)) is not None}):
            gaps.setdefault(gap, []).append((fw, bs, None))
    return [
        _gap_text(gap) if len(cells) == len(ran) else _naming(ev, _gap_text(gap), cells) for gap, cells in gaps.items()
    ], []


def _schedule(rule: Rule, setup: dict[str, Any], ev: Evidence) -> tuple[list[Text], list[Text]]:
    if ev.kind != ACCURACY:
        return [], []
    return [Message(N_("the article states no learning-rate schedule, and a final accuracy depends on it"))], []


def _dataset(rule: Rule, setup: dict[str, Any], ev: Evidence) -> tuple[list[Text], list[Text]]:
    s = ev.table.setting
    if s.dataset != setup["dataset"]:
        return [Message(N_("{dataset} data, not CIFAR-10"), {"dataset": Message(s.dataset)})], []
    if s.train_images != setup["train_images"]:
        return [
            Message(
                N_("{images:,} training images, not {wanted:,}"),
                {"images": s.train_images, "wanted": setup["train_images"]},
            )
        ], []
    return [], []


def _protocol(rule: Rule, setup: dict[str, Any], ev: Evidence) -> tuple[list[Text], list[Text]]:
    problems: list[Text] = []
    if ev.table.setting.epochs != setup["epochs"]:
        problems.append(
            Message(
                N_("{epochs} epoch(s), not {wanted}"), {"epochs": ev.table.setting.epochs, "wanted": setup["epochs"]}
            )
        )
    not_run = [(fw, bs, None) for fw, bs, s in ev.cells() if s is None]
    failed = [(fw, bs, s.failure_note) for fw, bs, s in ev.cells() if s is not None and s.n_ok == 0]
    if not_run:
        problems.append(_naming(ev, Message(N_("not run")), not_run))
    if failed:
        problems.append(_naming(ev, Message(N_("every run failed")), failed))
    return problems, []


def _repeats(rule: Rule, setup: dict[str, Any], ev: Evidence) -> tuple[list[Text], list[Text]]:
    short = [
        (fw, bs, f"n={s.n_clean}")
        for fw, bs, s in ev.cells()
        if s is not None and s.judgeable and s.n_clean < rule.min_runs
    ]
    if not short:
        return [], []
    return [_naming(ev, Message(N_("fewer than {runs} clean runs"), {"runs": rule.min_runs}), short)], []


def _clean(rule: Rule, setup: dict[str, Any], ev: Evidence) -> tuple[list[Text], list[Text]]:
    problems: list[Text] = []
    notes: list[Text] = []
    flagged = [(fw, bs, s) for fw, bs, s in ev.cells() if s is not None and s.n_ok and not s.judgeable]
    if flagged:
        flags = sorted({f for *_cell, s in flagged for f in s.flags})
        kinds = Joined(tuple(Message(FLAGGED_RUNS[f]) for f in flags), OR)
        only = Message(N_("only {runs}"), {"runs": kinds})
        problems.append(_naming(ev, only, [(fw, bs, None) for fw, bs, _s in flagged]))
    left_out: Counter = Counter()
    for *_cell, s in ev.cells():
        if s is not None:
            left_out += s.left_out
    if left_out:
        runs = Joined(
            tuple(
                Message(N_("{count} {flag} run(s)"), {"count": count, "flag": Message(flag)})
                for flag, count in sorted(left_out.items())
            )
        )
        notes.append(Message(N_("left out: {runs}"), {"runs": runs}))
    return problems, notes


CheckFn = Callable[[Rule, dict[str, Any], Evidence], tuple[list[Text], list[Text]]]
#: rule id -> its check; the rules file names which of them apply, in which order
CHECKS: dict[str, CheckFn] = {
    "device": _device,
    "precision": _precision,
    "dataset": _dataset,
    "protocol": _protocol,
    "schedule": _schedule,
    "repeats": _repeats,
    "clean": _clean,
}


def check(rules: Rules, setup: dict[str, Any], evidence: Evidence) -> Check:
    """Apply every rule to one row's evidence: the conditions checked, what breaks them, what they tolerate."""
    problems: list[Text] = []
    notes: list[Text] = []
    for rule in rules.rules:
        broken, named = CHECKS[rule.id](rule, setup, evidence)
        problems += broken
        notes += named
    return Check(tuple(r.short for r in rules.rules), tuple(problems), tuple(notes))


def needs(frameworks: Iterable[str], batch_sizes: Iterable[int]) -> tuple[tuple[str, int], ...]:
    """Every (framework, batch size) pair of the given frameworks and batch sizes."""
    sizes = list(batch_sizes)
    return tuple((fw, bs) for fw in frameworks for bs in sizes)
