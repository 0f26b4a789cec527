"""The site's languages and the catalogue that translates its words.

English is the source language: the templates (``{% trans %}``) and the code (``_()``, ``ngettext()``, ``N_()``
and ``Nn_()`` for a constant translated where it is shown, ``pgettext()`` for a word with two senses) write English
and mark it for translation. The Chinese lives in ``generator/locale/zh/LC_MESSAGES/messages.po``, a Babel
catalogue that ``generator.catalogue`` keeps in step with the sources. The .po is compiled in memory the first time
a build needs it, so no .mo file is committed or written, and a build cannot run on a stale one.

A build renders one language at a time (``language()``): the active catalogue is a context variable, so the
same code and templates write either language.
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

#: language code -> its name in the language switcher; the first is the source language, served at /
LANGUAGES = {"en": "English", "zh": "中文"}
SOURCE = "en"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "messages"

_active: ContextVar[tuple[str, gettext.NullTranslations]] = ContextVar(
    "fwbench_language", default=(SOURCE, gettext.NullTranslations())
)


def catalogue_path(language: str) -> Path:
    """The .po file of a translated language."""
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(language: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``language`` (the source language translates nothing); fuzzy entries are left
    out, so an unreviewed translation never reaches a page."""
    if language == SOURCE:
        return gettext.NullTranslations()
    with catalogue_path(language).open("rb") as handle:
        catalog = read_po(handle, locale=language)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


@contextmanager
def language(code: str) -> Iterator[None]:
    """Write ``code`` while the block runs."""
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {code!r}; known: {', '.join(LANGUAGES)}")
    token = _active.set((code, translations(code)))
    try:
        yield
    finally:
        _active.reset(token)


def current() -> str:
    """The language being written."""
    return _active.get()[0]


def translate(message: str) -> str:
    """``message`` in the language being written; for text whose English comes from elsewhere (a data file, a
    constant marked with ``N_``)."""
    return _active.get()[1].gettext(message)


#: the extractor's keyword: ``_("literal English")`` puts the literal in the catalogue
_ = translate


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form of a message for ``n``, in the language being written."""
    return _active.get()[1].ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the language being written, as it reads in ``context``: for an English word that two places
    use in different senses (the profile ``article`` and the badge of the article's version)."""
    return _active.get()[1].pgettext(context, message)


def N_(message: str) -> str:  # noqa: N802 (the name every gettext extractor knows)
    """Mark a constant for the catalogue without translating it: it is translated with ``_()`` where shown."""
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:  # noqa: N802 (named as N_ is; generator.catalogue knows it)
    """Mark a message and its plural for the catalogue without translating them (``ngettext`` where shown)."""
    return singular, plural


# Translators: joins the parts of one statement (English "; "), such as the reasons of a claims row.
PART_SEPARATOR = N_("; ")
# Translators: joins the items of a list (English ", "), such as frameworks or batch sizes: "32, 64 and 128".
LIST_SEPARATOR = N_(", ")


def part_separator() -> str:
    """What joins the parts of one statement (a claims row's reasons, say) in the language being written."""
    return translate(PART_SEPARATOR)


def list_separator() -> str:
    """What joins the items of a list (frameworks, batch sizes) in the language being written."""
    return translate(LIST_SEPARATOR)
