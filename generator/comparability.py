"""The comparability rules of ``data/comparability.json``: when a measurement may be set beside the article's.

The rules' wording and parameters are data; the article's values they refer to are its setup in
``article_figures.json``. Each rule id has one check here, which names what breaks it (a problem: the row
is not comparable) or what it tolerates but a reader should know (a note, e.g. another GPU model).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from generator import fmt
from generator.aggregate import FLAGGED_RUNS, Summary, Table
from generator.data_text import translated
from generator.i18n import _, translate
from generator.machines import Machine
from generator.stats import MIN_RUNS_FOR_INTERVAL

RULES_FILE = Path(__file__).resolve().parent / "data" / "comparability.json"


class RulesError(ValueError):
    """The rules file is malformed; the message names the file and the field."""


@dataclass(frozen=True)
class Rule:
    """One condition a verdict needs, with the differences it tolerates (texts filled in from the setup)."""

    id: str
    short: str
    condition: str
    tolerates: tuple[str, ...]
    min_runs: int | None = None


@dataclass(frozen=True)
class Rules:
    """Every rule, in the file's order, and the time-to-accuracy targets."""

    about: str
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

    conditions: tuple[str, ...]  # the short names of the rules checked
    problems: tuple[str, ...]  # why the row is not comparable; empty when it is
    notes: tuple[str, ...]  # tolerated differences worth naming beside the verdict

    @property
    def comparable(self) -> bool:
        """True when no rule is broken."""
        return not self.problems


def _and_list(items: list[str]) -> str:
    return ", ".join(items[:-1]) + _(" and ") + items[-1] if len(items) > 1 else "".join(items)


def _context(setup: dict[str, Any], rule: dict[str, Any]) -> dict[str, Any]:
    """The values a rule's texts may name: the article's setup, the rule's own parameters, and lists as text."""
    versions = setup.get("framework_versions", {})
    return {
        **setup,
        **rule,
        "batch_sizes_text": _and_list([str(b) for b in setup["batch_sizes"]]),
        "framework_versions_text": _and_list([f"{fmt.label(fw)} {v}" for fw, v in versions.items()]),
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
                    short=raw["short"].format(**context),
                    condition=raw["condition"].format(**context),
                    tolerates=tuple(t.format(**context) for t in raw["tolerates"]),
                    min_runs=raw.get("min_runs"),
                )
            )
        missing = set(CHECKS) - {r.id for r in rules}
        if missing:
            raise RulesError(f"{source}: field 'rules': no rule for {', '.join(sorted(missing))}")
        found = Rules(
            about=data["about"],
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


@cache
def _rules_file() -> dict[str, Any]:
    return json.loads(RULES_FILE.read_text(encoding="utf-8"))


def load_rules(setup: dict[str, Any]) -> Rules:
    """The rules of ``data/comparability.json`` with the article's ``setup`` filled in, in the language being
    written."""
    return parse_rules(translated(RULES_FILE.name, _rules_file()), setup)


@dataclass(frozen=True)
class Evidence:
    """What a claims row reads: one machine's table and the (framework, batch size) configurations it uses
    (compiled mode)."""

    machine: Machine
    table: Table
    needs: tuple[tuple[str, int], ...]

    def cells(self) -> list[tuple[str, int, Summary | None]]:
        """(framework, batch size, summary or None when not run) for every configuration the row reads."""
        return [(fw, bs, self.table.cell(fw, "compiled", bs)) for fw, bs in self.needs]


def _where(framework: str, batch_size: int) -> str:
    return _("{framework} at batch {batch}").format(framework=fmt.label(framework), batch=batch_size)


def _naming(ev: Evidence, heading: str, found: list[tuple[str, int, str]]) -> str:
    """``heading: PyTorch at batch 32 (detail), …`` for the (framework, batch size, detail) found; a row about one
    configuration says ``heading (detail)`` alone, so that rows sharing a reason read the same."""
    if len(ev.needs) == 1:
        detail = found[0][2]
        return f"{heading} ({detail})" if detail else heading
    return f"{heading}: " + ", ".join(_where(fw, bs) + (f" ({detail})" if detail else "") for fw, bs, detail in found)


def _device(rule: Rule, setup: dict[str, Any], ev: Evidence) -> tuple[list[str], list[str]]:
    machine = ev.machine
    if not machine.hardware:
        return [_("this machine recorded no hardware (no successful run)")], []
    kind = machine.hardware["device_kind"]
    if kind != setup["device_kind"]:
        return [
            _("{device}: a {kind}, not a {wanted}").format(
                device=machine.device, kind=kind.upper(), wanted=setup["device_kind"].upper()
            )
        ], []
    if setup["device_match"].lower() not in machine.device.lower():
        return [], [
            _("another GPU: {device}, not the article's {article}").format(
                device=machine.device, article=setup["device_name"]
            )
        ]
    return [], []


def _dataset(rule: Rule, setup: dict[str, Any], ev: Evidence) -> tuple[list[str], list[str]]:
    s = ev.table.setting
    if s.dataset != setup["dataset"]:
        return [_("{dataset} data, not CIFAR-10").format(dataset=s.dataset)], []
    if s.older:
        return [
            _("training-set size unknown (older records: {images:,} images per epoch)").format(images=s.train_images)
        ], []
    if s.train_images != setup["train_images"]:
        return [
            _("{images:,} training images, not {wanted:,}").format(images=s.train_images, wanted=setup["train_images"])
        ], []
    return [], []


def _protocol(rule: Rule, setup: dict[str, Any], ev: Evidence) -> tuple[list[str], list[str]]:
    problems = []
    if ev.table.setting.epochs != setup["epochs"]:
        problems.append(
            _("{epochs} epoch(s), not {wanted}").format(epochs=ev.table.setting.epochs, wanted=setup["epochs"])
        )
    not_run = [(fw, bs, "") for fw, bs, s in ev.cells() if s is None]
    failed = [(fw, bs, s.failure_note) for fw, bs, s in ev.cells() if s is not None and s.n_ok == 0]
    if not_run:
        problems.append(_naming(ev, _("not run"), not_run))
    if failed:
        problems.append(_naming(ev, _("every run failed"), failed))
    return problems, []


def _repeats(rule: Rule, setup: dict[str, Any], ev: Evidence) -> tuple[list[str], list[str]]:
    short = [
        (fw, bs, f"n={s.n_clean}")
        for fw, bs, s in ev.cells()
        if s is not None and s.judgeable and s.n_clean < rule.min_runs
    ]
    return ([_naming(ev, _("fewer than {runs} clean runs").format(runs=rule.min_runs), short)] if short else []), []


def _clean(rule: Rule, setup: dict[str, Any], ev: Evidence) -> tuple[list[str], list[str]]:
    problems, notes = [], []
    flagged = [(fw, bs, s) for fw, bs, s in ev.cells() if s is not None and s.n_ok and not s.judgeable]
    if flagged:
        flags = sorted({f for *_cell, s in flagged for f in s.flags})
        kinds = _(" or ").join(translate(FLAGGED_RUNS[f]) for f in flags)
        problems.append(_naming(ev, _("only {runs}").format(runs=kinds), [(fw, bs, "") for fw, bs, _s in flagged]))
    left_out: Counter = Counter()
    for *_cell, s in ev.cells():
        if s is not None:
            left_out += s.left_out
    if left_out:
        notes.append(
            _("left out: {runs}").format(
                runs=", ".join(
                    _("{count} {flag} run(s)").format(count=count, flag=translate(flag))
                    for flag, count in sorted(left_out.items())
                )
            )
        )
    return problems, notes


CheckFn = Callable[[Rule, dict[str, Any], Evidence], tuple[list[str], list[str]]]
#: rule id -> its check; the rules file names which of them apply, in which order
CHECKS: dict[str, CheckFn] = {
    "device": _device,
    "dataset": _dataset,
    "protocol": _protocol,
    "repeats": _repeats,
    "clean": _clean,
}


def check(rules: Rules, setup: dict[str, Any], evidence: Evidence) -> Check:
    """Apply every rule to one row's evidence: the conditions checked, what breaks them, what they tolerate."""
    problems: list[str] = []
    notes: list[str] = []
    for rule in rules.rules:
        broken, named = CHECKS[rule.id](rule, setup, evidence)
        problems += broken
        notes += named
    return Check(tuple(r.short for r in rules.rules), tuple(problems), tuple(notes))


def needs(frameworks: Iterable[str], batch_sizes: Iterable[int]) -> tuple[tuple[str, int], ...]:
    """Every (framework, batch size) pair of the given frameworks and batch sizes."""
    sizes = list(batch_sizes)
    return tuple((fw, bs) for fw in frameworks for bs in sizes)
