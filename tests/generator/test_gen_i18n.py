"""Both languages: every English page has a Chinese twin built from the same records, the catalogue translates every
message the sources mark, no English sentence of the catalogue is left on a Chinese page, and the Chinese site is
Chinese where a browser and a search engine look (html lang, navigation, search separator, charts)."""

from __future__ import annotations

import html
import json
import logging
import re
from collections import Counter
from pathlib import Path

import pytest
from one_page import pages_undrawn

from fwbench.probe_outcome import CAST_COMPUTED, CAST_WARNED
from generator.catalogue import extract, read_catalogue
from generator.i18n import LANGUAGES, LOCALE_DIR, SOURCE, language, translations
from generator.records.load import load_results
from generator.records.probes import CAST_WORDS, cast_evidence_text
from generator.site import STATIC_PAGES, speed
from generator.site.versions import article_badge
from generator.views import sitedata
from generator.views.record_text import recorded
from generator.views.table_view import setting_word
from runners.measure.host_memory import BASES, basis_text

pytestmark = pytest.mark.slow

ZH = "zh"
#: English word runs that a Chinese page may show, with why
ALLOWED_RUNS = {
    "above the post-import baseline": "quoted from the records' own memory.host_peak_basis, shown verbatim",
}
#: a run of four or more English words: what counts as a sentence left untranslated
WORD_RUN = re.compile(r"[A-Za-z][A-Za-z'’-]*(?:[ ,]+[A-Za-z][A-Za-z'’-]*){3,}")
#: what in a message is not prose: placeholders, code spans, link targets, attribute lists and icons
NOT_PROSE = re.compile(r"\{[^}]*\}|%\([a-z_]+\)s|`[^`]*`|\]\([^)]*\)|:material-[a-z-]+:")


def pages(site: Path) -> dict[str, str]:
    """The built HTML pages of one language's site, by path relative to it (the other languages' folders apart)."""
    others = {code for code in LANGUAGES if code != SOURCE and site.name != code}
    return {
        p.relative_to(site).as_posix(): p.read_text(encoding="utf-8")
        for p in site.rglob("*.html")
        if p.relative_to(site).parts[0] not in others | {"assets"}
    }


def article_text(page: str) -> str:
    """What a reader reads in a page's article, tags removed and entities decoded."""
    body = page.split("<article", 1)[-1].split("</article>", 1)[0]
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)))


def numbers_in_cells(page: str) -> Counter:
    """Every figure inside the page's table cells."""
    cells = " ".join(re.findall(r"<td[^>]*>(.*?)</td>", page, re.S))
    return Counter(re.findall(r"\d+(?:[.,]\d+)*", re.sub(r"<[^>]+>", " ", cells)))


def test_every_english_page_has_a_chinese_twin_with_the_same_figures_and_charts(built_site):
    english, chinese = pages(built_site), pages(built_site / ZH)
    assert len(english) >= 17 and sorted(english) == sorted(chinese)
    hand_written = {page.path.removesuffix(".md") + ".html" for page in STATIC_PAGES}  # its twin links to it
    for path, page in english.items():
        if path not in hand_written:
            assert numbers_in_cells(page) == numbers_in_cells(chinese[path]), f"{path}: the tables' figures differ"
    charts = sorted(p.name for p in (built_site / "charts").glob("*.png"))
    assert charts and charts == sorted(p.name for p in (built_site / ZH / "charts").glob("*.png"))


def test_the_catalogue_translates_every_message_the_sources_mark():
    catalogue = read_catalogue(ZH)
    for message in extract():
        if not message.id:
            continue
        found = catalogue.get(message.id, message.context)
        assert found is not None, f"not in the zh catalogue (run python -m generator.catalogue): {message.id!r}"
        strings = found.string if isinstance(found.string, tuple) else (found.string,)
        assert all(strings) and not found.fuzzy, f"untranslated or fuzzy in the zh catalogue: {message.id!r}"
    assert translations(ZH).gettext("within noise") == "噪声范围内"  # compiled in memory: no .mo file anywhere
    assert not list(LOCALE_DIR.rglob("*.mo"))


def test_no_english_sentence_of_the_catalogue_is_left_on_a_chinese_page(built_site):
    texts = {path: article_text(page) for path, page in pages(built_site / ZH).items()}
    for message in read_catalogue(ZH):
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        if not message.id or message.string == message.id:
            continue  # a name kept as it is (torch.compile, TensorBoard)
        for text in ids:
            for run in WORD_RUN.findall(NOT_PROSE.sub("|", text.replace("%%", "%").replace("**", ""))):
                if run in ALLOWED_RUNS:
                    continue
                found = [path for path, page in texts.items() if run in page]
                assert not found, f"{found[0]} shows {run!r}, English from the catalogue's {text!r}"


#: English that Chinese pages used to keep: setting words in headings, record-derived texts, Material's own words
LEFTOVERS = (
    "synthetic",
    "quick ·",
    "(TF32 off)",
    "Made with",
    "Not found",
    "names shapes",
    "this process's peak RSS",
    "compiled:",
    "(compiled mode",
    '=== "compiled"',
    "（compiled）",  # a claims row's mode
    " compiled，",  # an undertrained configuration's column and mode (accuracy)
    "a warning said",  # a silently cast probe's evidence (debugging)
    "PyPI's build",  # a known-good set's note (fwbench/version_sets.json), on every Versions page
)


def visible_text(page: str) -> str:
    """What a reader reads anywhere on a page (its article, header, footer), tags and scripts removed."""
    page = re.sub(r"<script.*?</script>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def test_chinese_pages_keep_none_of_the_english_leftovers(built_site):
    for path, page in sorted(pages(built_site / ZH).items()):
        shown = visible_text(page)
        found = next((word for word in LEFTOVERS if word in shown), None)
        assert found is None, f"{path} shows {found!r}"


def test_chinese_pages_are_marked_chinese_and_navigate_by_the_articles_headings(built_site):
    english, chinese = pages(built_site), pages(built_site / ZH)
    assert all('<html lang="en"' in page for page in english.values())
    assert all('<html lang="zh"' in page for page in chinese.values())
    home = chinese["index.html"]
    for heading in (
        "1 这些框架到底谁跑得更快",
        "2 测试环境与方法",
        "3 实测性能数据",
        "4 开发体验对比",
        "5 不同场景下的选择建议",
        "6 性能之外的关键考量",
        "3.2 内存占用",
    ):
        assert heading in home, heading
    assert "《对比不同深度学习框架在训练环境中的性能表现》" in home  # the article, named by its title
    assert "§1 这些框架到底谁跑得更快" in chinese["appendix/claims.html"]
    # the language switcher leads to the twin page, relative, so that it also works opened from disk
    assert 'href="../zh/results/speed.html" hreflang="zh"' in english["results/speed.html"]
    assert 'href="../../results/speed.html" hreflang="en"' in chinese["results/speed.html"]


def test_chinese_search_splits_between_han_characters(built_site):
    index = json.loads((built_site / ZH / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert "(?=[\\u4e00-\\u9fff])" in index["config"]["separator"]
    assert any("显存" in doc["text"] for doc in index["docs"])


def test_chinese_charts_keep_english_labels_without_a_cjk_font(results_dir, monkeypatch, caplog):
    monkeypatch.setattr(sitedata, "cjk_font", lambda: None)
    sitedata._note_english_charts.cache_clear()  # the note is logged once per language and process
    with caplog.at_level(logging.WARNING, logger=sitedata.__name__), language(ZH):
        site = sitedata.SiteData(load_results(results_dir), sitedata.REPO_ROOT)
        page = speed.context(site)
    assert "fonts-noto-cjk" in caplog.text
    assert {chart.ylabel for chart in site.charts.values()} == {"images per second"}
    assert page["tables"] and page["tables"][0].grids["compiled"].keys() >= {"吞吐量（张/秒）"}  # the page stays zh


def test_the_same_records_render_in_both_languages(results_dir):
    results = load_results(results_dir)
    english, chinese = pages_undrawn(results), pages_undrawn(results, language=ZH)
    assert sorted(english) == sorted(set(chinese) - {page.path for page in STATIC_PAGES})
    for path in english:
        if path.startswith("data/"):  # the downloads: the same figures (the same records, byte for byte)
            figures = re.compile(r"\d+(?:\.\d+)*")
            if isinstance(english[path], bytes):
                assert english[path] == chinese[path], path
            else:
                assert Counter(figures.findall(english[path])) == Counter(figures.findall(chinese[path])), path
    assert "噪声范围内" in chinese["appendix/claims.md"] and "within noise" in english["appendix/claims.md"]
    assert chinese["design.md"].startswith("# 设计") and "../design.html" in chinese["design.md"]


def test_every_memory_basis_and_cast_wording_fwbench_writes_reads_in_chinese():
    assert CAST_WORDS == {CAST_WARNED: CAST_WARNED, CAST_COMPUTED: CAST_COMPUTED}  # the catalogue's = fwbench's
    warned = {"outcome": "no_error", "expected_tokens": ["float64", "float32"], "warnings": ["float64 cast to float32"]}
    with language(ZH):
        for basis in (basis_text(b) for b in BASES):
            assert "peak RSS" not in recorded(basis), basis
        assert cast_evidence_text(warned) == "一条警告称 float64 输入被转换为 float32"


def test_a_word_with_two_senses_is_translated_by_its_context():
    # "article" is a profile's name (a setting) and the badge of the article's release on the versions page
    with language("zh"):
        assert setting_word("article") == "article 配置档"
        assert article_badge() == "原文"
    assert setting_word("article") == article_badge() == "article"
