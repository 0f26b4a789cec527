"""Keep the translation catalogue in step with the sources (Babel).

``python -m generator.catalogue`` extracts every message marked for translation — the templates' ``{% trans %}``
blocks, the code's ``_()``/``ngettext()``/``N_()``/``Nn_()``, the data files' prose (``generator.data_text``) and
the registries' words (why a framework is not measured on a device, a workload folder's heading words) — into
``locale/messages.pot`` and merges it into each language's .po: new messages arrive untranslated, changed ones
fuzzy, and the tests name the first one until a translator fills it in. How to extract is ``locale/babel.cfg``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

from fwbench.frameworks import REGISTRY
from fwbench.workload_names import REGISTRY as WORKLOADS
from generator.data_text import extract_prose
from generator.i18n import LANGUAGES, LOCALE_DIR, SOURCE, catalogue_path

GENERATOR_DIR = LOCALE_DIR.parent
#: data files outside generator/ whose prose a page shows (generator.data_text.PROSE names the fields)
OUTSIDE_DATA = (GENERATOR_DIR.parent / "fwbench" / "version_sets.json",)
MAPPING = LOCALE_DIR / "babel.cfg"
TEMPLATE = LOCALE_DIR / "messages.pot"
#: a comment above a message that starts with this reaches the translator
COMMENT_TAG = "Translators:"
#: the gettext keywords, and ``Nn_``: a message and its plural marked without translating them (``generator.i18n``)
KEYWORDS = {**DEFAULT_KEYWORDS, "Nn_": (1, 2)}


def extract() -> Catalog:
    """Every message the sources mark for translation, with the files that use it."""
    with MAPPING.open(encoding="utf-8") as handle:
        method_map, options_map = parse_mapping_cfg(handle, str(MAPPING))
    catalog = Catalog(project="fwbench", msgid_bugs_address="", charset="utf-8")
    for filename, _lineno, message, comments, context in extract_from_dir(
        GENERATOR_DIR, method_map, options_map, KEYWORDS, (COMMENT_TAG,), strip_comment_tags=True
    ):
        catalog.add(message, None, [(f"generator/{filename}", None)], auto_comments=comments, context=context)
    for entry in REGISTRY.values():  # why a framework is not measured on a device: that device's tables say it
        for _device, reason in entry.not_measured:
            catalog.add(reason, None, [("fwbench/frameworks.py", None)])
    for entry in WORKLOADS.values():  # how a heading names a workload: its folder's entry says it
        if entry.words:
            catalog.add(entry.words, None, [(f"runners/workloads/{entry.name}/__init__.py", None)])
    for path in OUTSIDE_DATA:
        with path.open("rb") as handle:
            for _lineno, _funcname, message, _comments in extract_prose(handle, KEYWORDS, (), {}):
                catalog.add(message, None, [(str(path.relative_to(GENERATOR_DIR.parent)), None)])
    return catalog


def read_catalogue(language: str) -> Catalog:
    """The .po catalogue of ``language`` as it is on disk."""
    with catalogue_path(language).open("rb") as handle:
        return read_po(handle, locale=language)


def _write(path: Path, catalog: Catalog) -> None:
    with path.open("wb") as handle:
        write_po(handle, catalog, width=120, ignore_obsolete=True, include_lineno=False)


def translated(string: str | tuple[str, ...]) -> bool:
    """True when a message's translation is filled in: every form of a plural one (a tuple of forms)."""
    return all(string) if isinstance(string, tuple) else bool(string)


def update() -> list[str]:
    """Write the .pot from the sources and merge it into every language's .po; return what needs a translator."""
    template = extract()
    _write(TEMPLATE, template)
    pending = []
    for language in LANGUAGES:
        if language == SOURCE:
            continue
        catalog = read_catalogue(language)
        catalog.update(template)
        _write(catalogue_path(language), catalog)
        pending += [f"{language}: {m.id!r}" for m in catalog if m.id and (not translated(m.string) or m.fuzzy)]
    return pending


def main() -> int:
    """Update the catalogues; exit 1 while a message waits for its translation."""
    pending = update()
    for line in pending:
        print(f"generator.catalogue: untranslated or fuzzy: {line}", file=sys.stderr)
    print(f"generator.catalogue: {TEMPLATE.relative_to(GENERATOR_DIR.parent)} written; {len(pending)} to translate")
    return 1 if pending else 0


if __name__ == "__main__":
    sys.exit(main())
