"""Verdicts are language-neutral and computed once per build: the second language's pages reuse the first's."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from typing import Any

import gen_records
import pytest
from one_page import pages_undrawn

from generator.i18n import language
from generator.message import Message
from generator.records.load import load_results
from generator.verdicts.article import machine, setup_and_unsourced
from generator.views import sitedata
from generator.views.sitedata import SiteData
from generator.views.verdict_text import text

CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
#: a verdict computation, as SiteData reaches it (module, name)
COMPUTATIONS = (
    (machine, "machine_claims"),  # once per machine
    (sitedata, "measured_choices"),
    (sitedata, "leads_by_batch"),  # once per out-of-the-box table
    (sitedata, "undertrained"),
    (sitedata, "diverged"),
    (sitedata, "image_agreement"),
)


@pytest.fixture(scope="module")
def calls_by_language(tmp_path_factory) -> dict[str, dict[str, int]]:
    """How often the claims check and each of COMPUTATIONS ran by the end of the English build and by the end of
    the Chinese one, which shares the English build's values: one build of each language counts them all."""
    results, shared = load_results(gen_records.write_results(tmp_path_factory.mktemp("neutral"))), {}
    calls: dict[str, int] = {}

    def counting(module: Any, name: str) -> Any:
        wrapped = getattr(module, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            calls[name] = calls.get(name, 0) + 1
            return wrapped(*args, **kwargs)

        return counted

    by_language = {}
    with pytest.MonkeyPatch.context() as patch:
        for module, name in ((setup_and_unsourced, "article_claims"), *COMPUTATIONS):
            patch.setattr(module, name, counting(module, name))
        for code in ("en", "zh"):
            pages_undrawn(results, language=code, shared=shared)
            by_language[code] = dict(calls)
    return by_language


def test_building_both_languages_computes_the_claims_check_once(calls_by_language):
    assert calls_by_language["zh"].get("article_claims") == 1


@pytest.mark.parametrize("name", [name for _m, name in COMPUTATIONS])
def test_building_both_languages_computes_each_verdict_once(calls_by_language, name):
    in_english = calls_by_language["en"].get(name, 0)
    assert in_english >= 1 and calls_by_language["zh"][name] == in_english  # the Chinese build reused every one


def strings(value: Any, seen: set[int] | None = None) -> Iterator[str]:
    """Every str inside ``value``: its fields, items, keys and values, however deep."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from strings(key, seen)
            yield from strings(item, seen)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from strings(item, seen)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from strings(getattr(value, f.name), seen)


def verdicts(site: SiteData) -> dict[str, Any]:
    """Every verdict the pages show, by what it is."""
    tables = site.out_of_box + site.tuned
    return {
        "claims": site.claim_scopes,
        "probe claims": site.probe_claims,
        "rules": site.rules,
        "choices": site.choices,
        "leads": [site.throughput_leads(t) for t in tables],
        "accuracy": [(site.undertrained(t), site.diverged(t), site.agreement(t)) for t in tables],
        "speed rankings": [site.article_speed_ranking(t) for t in site.version_tables],
    }


def test_verdicts_hold_no_translated_text(results_dir, tmp_path):
    with language("zh"):
        found = verdicts(SiteData(load_results(results_dir), tmp_path))
        assert text(Message("not run")) == "未运行"  # the words are there to be made, in Chinese
    for what, value in found.items():
        translated = [s for s in strings(value) if CJK.search(s)]
        assert not translated, f"{what}: {translated[:3]}"
    assert found["claims"] and found["choices"] and any(found["leads"])
