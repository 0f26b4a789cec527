"""On a 390 px phone, no table cell is narrower than its longest word, on any page in either language: no "PyT orch",
"quic k" or "0.1 0.2". A table too wide for its box with whole words becomes a stack of cards (cards.js), which
scrolls nothing sideways. Chromium driven by Playwright, as in test_gen_browser.py."""

from __future__ import annotations

import pytest
import test_gen_browser as browsing
from test_gen_browser import VIEWPORTS, site_pages, visit, watched

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: the browser tests' own Chromium and server of the fixture site
browser, server = browsing.browser, browsing.server

#: every visible cell of the article narrower than its longest word, with that width: the cell's content laid out
#: at its min-content width, where the browser breaks lines only where its line-breaking rules allow (between words,
#: between Chinese characters, after a hyphen) and never inside a word. A card's cell is as wide as the screen
#: allows, so only a word wider than the screen breaks there: not counted. And the tables shown as cards.
NARROW_CELLS = """(() => {
  const visible = el => el.offsetParent !== null && el.getBoundingClientRect().width > 0;
  const article = document.querySelector('article') || document.body;
  const rule = document.createElement('style');
  rule.textContent = '.fw-probe, .fw-probe * { overflow-wrap: normal !important; word-break: normal !important; }';
  document.head.append(rule);
  const narrow = [];
  for (const cell of article.querySelectorAll('td, th')) {
    if (!visible(cell) || cell.closest('table[data-fw-cards]')) continue;
    const style = getComputedStyle(cell);
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    const inner = cell.clientWidth - padding;
    const probe = document.createElement('div');
    probe.className = 'fw-probe';
    probe.style.cssText = 'position:absolute;visibility:hidden;left:0;top:0;width:min-content;white-space:normal';
    probe.innerHTML = cell.innerHTML;
    cell.append(probe);
    const word = probe.getBoundingClientRect().width;
    probe.remove();
    if (word > inner + 1) {
      narrow.push(`${cell.textContent.trim().slice(0, 40)} (${Math.round(word)} px in ${Math.round(inner)} px)`);
    }
  }
  rule.remove();
  return {narrow: narrow, cards: article.querySelectorAll('table[data-fw-cards]').length};
})()"""


def test_no_cell_is_narrower_than_its_longest_word_on_a_phone(browser, server, built_site):
    page = browser.new_page(viewport=VIEWPORTS["phone"], device_scale_factor=1)
    watching = watched(page)
    found, cards = {}, 0
    for path in site_pages(built_site):
        visit(page, watching, server + path)
        state = page.evaluate(NARROW_CELLS)
        cards += state["cards"]
        if state["narrow"]:
            found[path] = state["narrow"][:5]
    page.close()
    assert not found, "\n".join(f"{path}: {cells}" for path, cells in found.items())
    assert cards, "no table was wide enough to become cards: the test would not see them fail"


#: the first card's label and display, and how many tables are cards
FIRST_CARD = """() => ({
  first: [...document.querySelectorAll('article table[data-fw-cards] td[data-label]')]
           .slice(0, 1).map(td => [td.dataset.label, getComputedStyle(td).display]),
  cards: document.querySelectorAll('article table[data-fw-cards]').length,
})"""


def test_a_table_becomes_cards_on_a_phone_only(browser, server, built_site):
    """The first page with cards at 390 px: each cell labelled with its column's header, shown as a block; the same
    page at 1366 px, where its tables fit, keeps them."""
    page = browser.new_page(viewport=VIEWPORTS["phone"], device_scale_factor=1)
    watching = watched(page)
    for path in site_pages(built_site):
        visit(page, watching, server + path)
        phone = page.evaluate(FIRST_CARD)
        if phone["cards"]:
            break
    page.close()
    ((header, display),) = phone["first"]
    assert header and display == "block", path
    page = browser.new_page(viewport=VIEWPORTS["desktop"], device_scale_factor=1)
    visit(page, watched(page), server + path)
    assert page.evaluate(FIRST_CARD)["cards"] == 0, path
    page.close()
