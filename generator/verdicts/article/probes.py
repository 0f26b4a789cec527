"""The article's 4.1 error messages and its 200-line TensorFlow stack beside what the shape-bug probes captured.

The rows read the probes of the article's releases (``runners probes --versions article``: PyTorch 2.2.1,
TensorFlow 2.15 with its own Keras 2.15, JAX 0.4.26) where there are any for a framework, else today's, and name
the release either way. Beside an article-version row, today's message appears as "changed since" where it
differs.
"""

from __future__ import annotations

import re
from typing import Any

from fwbench.frameworks import framework, label
from fwbench.probe_outcome import outcome_category
from generator.i18n import N_
from generator.message import Joined, Message, Text
from generator.records.identity import release
from generator.records.load import Loaded
from generator.verdicts.article import article_frameworks
from generator.verdicts.claims import CONFIRMED, CONTRADICTED, NOT_COMPARABLE, Claim, within_relative

#: a size pair in a message: 8x128, (8, 128), [8, 128] X [64, 10]
_SIZE_PAIR = re.compile(r"\d+\s*[x×X,]\s*\d+[)\]]?")
#: the longest excerpt of a message a claims row shows
MESSAGE_CHARS = 200


def _message_form(text: str) -> re.Pattern:
    """The article's message as a pattern with every number a placeholder: the wording, not the sizes."""
    return re.compile(re.sub(r"\d+", r"\\d+", re.escape(text)))


def _key_line(message: str) -> str:
    """The first line of ``message`` that names a size pair (else its first line); a long line is cut to the
    MESSAGE_CHARS that end with its last size pair, where the innermost error usually sits."""
    lines = [line.strip() for line in message.splitlines() if line.strip()] or [""]
    line = next((line for line in lines if _SIZE_PAIR.search(line)), lines[0])
    if len(line) <= MESSAGE_CHARS:
        return line
    pairs = list(_SIZE_PAIR.finditer(line))
    end = max(pairs[-1].end(), MESSAGE_CHARS) if pairs else MESSAGE_CHARS
    start = end - MESSAGE_CHARS
    return ("…" if start else "") + line[start:end] + ("…" if end < len(line) else "")


def _short_type(exception_type: str | None) -> str | None:
    return exception_type.rsplit(".", 1)[-1] if exception_type else None


def _probe_conditions(record: dict[str, Any], machine_id: str) -> tuple[Text, ...]:
    fw = record["framework"]
    packages = record["software"].get("packages") or {}
    companions = Joined(tuple(f"{c} {packages[c]}" for c in framework(fw["name"]).companions if packages.get(c)))
    return (
        Message(N_("probe {bug}"), {"bug": record["bug"]}),
        Message(N_("mode: {mode}"), {"mode": Message(fw["mode"])}),
        f"{label(fw['name'])} {fw['version']}",
        *((Message(N_("with {packages}"), {"packages": companions}),) if companions.items else ()),
        Message(N_("machine: {machine}"), {"machine": machine_id}),
    )


def _version_note(record: dict[str, Any], article: dict[str, Any]) -> tuple[Text, ...]:
    """The reason's part that names the probe's release where it is not the article's."""
    fw = record["framework"]
    stated = article["setup"]["framework_versions"][fw["name"]]
    if release(fw["version"]) == release(stated):
        return ()
    return (
        Message(
            N_("the probe ran {framework} {version}, the article {stated}"),
            {"framework": label(fw["name"]), "version": fw["version"], "stated": stated},
        ),
    )


def _of_article(record: dict[str, Any], article: dict[str, Any]) -> bool:
    """Whether the probe ran the article's release of its framework."""
    fw = record["framework"]
    return release(fw["version"]) == release(article["setup"]["framework_versions"][fw["name"]])


def _shape_bug_probes(article: dict[str, Any], probes: list[Loaded]) -> list[Loaded]:
    bug, frameworks = article["error_messages"]["probe_bug"], article_frameworks(article)
    return [p for p in probes if p.record["bug"] == bug and p.record["framework"]["name"] in frameworks]


def _bug_probes(article: dict[str, Any], probes: list[Loaded]) -> list[Loaded]:
    """The shape-bug probes the rows read: per framework those of the article's release where there are any,
    else today's (run in fwbench's own interpreter)."""
    frameworks = article_frameworks(article)
    found = _shape_bug_probes(article, probes)
    with_article = {p.record["framework"]["name"] for p in found if _of_article(p.record, article)}
    return sorted(
        (
            p
            for p in found
            if (
                _of_article(p.record, article)
                if p.record["framework"]["name"] in with_article
                else not p.record.get("environment")
            )
        ),
        key=lambda p: (frameworks.index(p.record["framework"]["name"]), p.record["framework"]["mode"], p.machine_id),
    )


def _today(probe: Loaded, article: dict[str, Any], probes: list[Loaded]) -> Loaded | None:
    """Today's probe of the same framework, mode and machine as the article-version ``probe``, where there is one
    of another release."""
    fw = probe.record["framework"]
    if not _of_article(probe.record, article):
        return None
    return next(
        (
            p
            for p in _shape_bug_probes(article, probes)
            if not p.record.get("environment")
            and p.record["framework"]["name"] == fw["name"]
            and p.record["framework"]["mode"] == fw["mode"]
            and p.machine_id == probe.machine_id
            and release(p.record["framework"]["version"]) != release(fw["version"])
        ),
        None,
    )


def _shown(record: dict[str, Any], stated: dict[str, Any]) -> tuple[str | None, re.Match | None]:
    """What a row shows of the probe's message (the article's wording where it matches, else the message's key
    line; prefixed by the exception type where the article names one) and the match; None without an error."""
    if record["outcome"] != "error":
        return None, None
    message = record["message_clean"] or ""
    match = _message_form(stated["text"]).search(message)
    shown = match[0] if match else _key_line(message)
    return (f"{_short_type(record['exception_type'])}: " if stated["exception_type"] else "") + shown, match


def _changed_since(probe: Loaded, shown: str | None, article: dict[str, Any], probes: list[Loaded]) -> tuple:
    """Today's message beside an article-version row's, where it differs."""
    today = _today(probe, article, probes)
    if today is None:
        return ()
    r = today.record
    stated = article["error_messages"]["messages"][r["framework"]["name"]]
    now, _match = _shown(r, stated)
    if now == shown:
        return ()
    fw = r["framework"]
    return (
        Message(
            N_("changed since: {framework} {version} says “{message}”")
            if now is not None
            else N_("changed since: {framework} {version} ended as {message}"),
            {"framework": label(fw["name"]), "version": fw["version"], "message": now or outcome_category(r)},
        ),
    )


def message_claims(article: dict[str, Any], probes: list[Loaded]) -> list[Claim]:
    """Each framework's 4.1 message beside the message its shape-bug probe captured, one row per probe."""
    spec = article["error_messages"]
    rows = []
    for p in _bug_probes(article, probes):
        r, fw = p.record, p.record["framework"]
        stated = spec["messages"][fw["name"]]
        stated_type = stated["exception_type"]
        caught_type = _short_type(r["exception_type"])
        shown, match = _shown(r, stated)
        ours: Text
        reason: tuple[Text, ...]
        if shown is None:
            verdict, ours = NOT_COMPARABLE, Message(N_("no message"))
            reason = (
                Message(
                    N_("the probe ended as {outcome}, with no message to compare"), {"outcome": outcome_category(r)}
                ),
            )
        else:
            ours = shown
            if match and stated_type and caught_type != stated_type:
                verdict = CONTRADICTED
                reason = (
                    Message(
                        N_("same wording, but raised as {caught}, not {stated}"),
                        {"caught": caught_type, "stated": stated_type},
                    ),
                )
            elif match:
                verdict, reason = CONFIRMED, (Message(N_("same wording")), Message(N_("only the sizes differ")))
            else:
                verdict, reason = CONTRADICTED, (Message(N_("the captured message has other wording")),)
            reason += _version_note(r, article)
        reason += _changed_since(p, shown, article, probes)
        rows.append(
            Claim(
                section=spec["section"],
                claim=Message(
                    N_("{framework} ({mode}): the message for the shape bug"),
                    {"framework": label(fw["name"]), "mode": Message(fw["mode"])},  # the mode word translated
                ),
                article=(f"{stated_type}: " if stated_type else "") + stated["text"],
                ours=ours,
                verdict=verdict,
                reason=reason,
                conditions=(
                    *_probe_conditions(r, p.machine_id),
                    Message(N_("wording compared with sizes as placeholders")),
                ),
            )
        )
    return rows


def traceback_claims(article: dict[str, Any], probes: list[Loaded]) -> list[Claim]:
    """4.1's 200-line TensorFlow stack beside the traceback each TensorFlow shape-bug probe captured."""
    spec = article["error_messages"]
    stated, tolerance = spec["tensorflow_traceback_lines"], spec["traceback_tolerance_relative"]
    bug_probes = _bug_probes(article, probes)
    rows = []
    for p in bug_probes:
        r = p.record
        if r["framework"]["name"] != "tensorflow":
            continue
        lines = r["traceback_lines"]
        others = Joined(
            tuple(
                f"{label(o.record['framework']['name'])} {o.record['traceback_lines']}"
                for o in bug_probes
                if o.record["framework"]["name"] != "tensorflow"
                and o.record["framework"]["mode"] == r["framework"]["mode"]
                and o.machine_id == p.machine_id
                and o.record["traceback_lines"] is not None
            )
        )
        stderr_lines = len((r.get("stderr_tail") or "").splitlines())
        ours: Text
        reason: tuple[Text, ...]
        if lines is None:
            verdict, ours = NOT_COMPARABLE, Message(N_("no traceback"))
            reason = (
                Message(
                    N_("the probe ended as {outcome}, with no traceback to count"), {"outcome": outcome_category(r)}
                ),
            )
        else:
            verdict = within_relative(lines, stated, tolerance)
            ours = Message(N_("{lines} lines"), {"lines": lines})
            if others.items:
                ours = Joined((ours, Message(N_("(same probe: {others})"), {"others": others})), " ")
            reason = (
                Message(
                    N_("{share:.0%} of the stated length, tolerance ±{tolerance:.0%}"),
                    {"share": lines / stated, "tolerance": tolerance},
                ),
                Message(N_("counted: the traceback as Python prints it, message included")),
                Message(N_("the probe's stderr held {lines} more lines"), {"lines": stderr_lines}),
                *_version_note(r, article),
            )
        rows.append(
            Claim(
                section=spec["section"],
                claim=Message(
                    N_("TensorFlow ({mode}): the error stack for the shape bug is about {lines} lines long"),
                    {"mode": Message(r["framework"]["mode"]), "lines": stated},
                ),
                article=Message(N_("{lines} lines"), {"lines": stated}),
                ours=ours,
                verdict=verdict,
                reason=reason,
                conditions=(*_probe_conditions(r, p.machine_id), Message(N_("traceback lines"))),
            )
        )
    return rows
