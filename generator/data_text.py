"""The data files of ``generator/data/``: reading one with its prose translated, and the prose's Babel extractor.

Which fields are words for a reader is ``PROSE``; the extractor puts them in the catalogue.

Only the fields named in ``PROSE`` are translated; everything else in a data file (figures, identifiers,
commands, framework messages quoted verbatim, the article's own Chinese title) stays as it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path, PurePath
from typing import IO, Any

from fwbench.frameworks import FRAMEWORKS
from generator.i18n import translate

DATA_DIR = Path(__file__).resolve().parent / "data"
#: data file -> the keys whose values (a string, or the strings in a list or mapping) are prose
PROSE = {
    "article_figures.json": {"language", "sections", "stated_ranking_text", "counting", "note", "claim", "why"},
    "comparability.json": {"about", "short", "condition", "tolerates"},
    "documentation.json": {"about", "article", "article_conclusion", "measured", "why"},
    "parity_checks.json": {"setting", "compares", "bound"},
    "platform_issues.json": {
        "about",
        "title",
        "symptom",
        "cause",
        "versions",
        "reproduce_shows",
        "workaround_effect",
        "reproduction_effect",
        "workaround_note",
        "labelled",
        "source",
    },
    "precision_recipes.json": {"summary", "bf16_differences", *FRAMEWORKS},  # a policy's recipe in each framework
    "toolchains.json": {"about", "need", "tool"},
    # not in generator/data/: runners envs reads it too (generator.catalogue extracts it as well)
    "version_sets.json": {"note", "cannot_run"},
}


def _prose(value: Any) -> Iterator[str]:
    """The strings of a prose field's value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _prose(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _prose(item)


def _walk(data: Any, keys: set[str], prose: bool = False) -> Any:
    if isinstance(data, dict):
        return {k: _walk(v, keys, prose or k in keys) for k, v in data.items()}
    if isinstance(data, list):
        return [_walk(v, keys, prose) for v in data]
    return translate(data) if prose and isinstance(data, str) and data else data


def translated(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """A copy of data file ``name``'s content with its prose in the language being written."""
    return _walk(data, PROSE[name])


@cache
def source_data(name: str) -> dict[str, Any]:
    """A data file of ``generator/data/`` by name as written: its prose English, the message ids that a page
    translates where it shows them (one object per file, shared: never changed)."""
    return json.loads((DATA_DIR / name).read_text(encoding="utf-8"))


def load_data(name: str) -> dict[str, Any]:
    """A data file of ``generator/data/`` by name (``toolchains.json``), its prose in the language being written."""
    return translated(name, source_data(name))


def prose_strings(name: str, data: Any) -> Iterator[str]:
    """Every prose string of data file ``name``, in file order."""
    keys = PROSE.get(name, set())
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _prose(value) if key in keys else prose_strings(name, value)
    elif isinstance(data, list):
        for item in data:
            yield from prose_strings(name, item)


def extract_prose(fileobj: IO[bytes], keywords, comment_tags, options) -> Iterator[tuple]:
    """Babel extractor (``generator.data_text:extract_prose`` in ``locale/babel.cfg``): a data file's prose."""
    name = PurePath(getattr(fileobj, "name", "")).name
    for text in prose_strings(name, json.loads(fileobj.read().decode("utf-8"))):
        if text:
            yield 0, "_", text, []
