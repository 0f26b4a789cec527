"""A real browser: Debian's Chromium, driven by Playwright, opens every page of the built site, in English and in
Chinese, at 1366×900, at 1100×900 and on a 390×844 phone, and checks what a reader sees — tables that fit their box,
never a table turned into cards on a desktop, images that load, no console errors; on a phone, no table cell narrower
than its longest word (no "PyT orch", "quic k" or "0.1 0.2"): a table too wide for its box with whole words becomes a
stack of cards (cards.js) — the home page at most three screens tall on a desktop, its first answer and chart before
anything else on a phone; then the site opened from disk, its 404 page under a project sub-path, Chinese text drawn
with a CJK font (not as empty boxes), the language switcher and a Chinese search.

Playwright drives the system's Chromium (``executable_path``): nothing is downloaded. Screenshots of the main
pages at both widths, and of the Chinese home, speed and debugging pages, go to ``$FWBENCH_SCREENSHOTS`` (default
tests/screenshots/generator/, git-ignored).
"""

from __future__ import annotations

import functools
import os
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urljoin

import pytest

from generator.i18n import LANGUAGES

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCREENSHOTS = Path(
    os.environ.get("FWBENCH_SCREENSHOTS") or Path(__file__).resolve().parents[1] / "screenshots" / "generator"
)
VIEWPORTS = {
    "desktop": {"width": 1366, "height": 900},
    "laptop": {"width": 1100, "height": 900},
    "phone": {"width": 390, "height": 844},
}
#: the viewports where no table may be a stack of cards (cards.js makes them below 1024 px only)
DESKTOPS = ("desktop", "laptop")
SHOT_PAGES = (
    "index.html",
    "results/speed.html",
    "results/accuracy.html",
    "devex/debugging.html",
    "appendix/claims.html",
)
#: pages per language that may need sideways scrolling on a phone (the code-size page shows source files line for
#: line)
PHONE_SCROLLING_ALLOWED = 2
#: the Chinese pages screenshotted and checked for CJK glyphs
CHINESE_PAGES = ("zh/index.html", "zh/results/speed.html", "zh/devex/debugging.html")
SUB_PATH = "/fwbench/"
#: page -> tables that must be visible on it (collapsed blocks and inactive tabs excluded)
MIN_TABLES = {
    "results/verdicts.html": 2,
    "results/speed.html": 3,
    "results/memory.html": 2,
    "results/accuracy.html": 1,
    "devex/debugging.html": 2,
    "devex/code-size.html": 1,
    "devex/toolchains.html": 1,
    "choose.html": 1,
    "beyond/community.html": 2,
    "beyond/maintenance.html": 2,
    "appendix/claims.html": 5,
    "method.html": 2,
}
#: whether a page's Chinese heading is drawn with real glyphs: its Han characters beside as many unassigned code
#: points (which every font draws as the same empty box), in the heading's own font, and their advance (a CJK
#: ideograph is one em wide; a box is narrower)
CJK_GLYPHS = """(() => {
  const h1 = document.querySelector('article h1');
  const style = getComputedStyle(h1);
  const han = [...h1.textContent].filter(ch => /\\p{Script=Han}/u.test(ch)).slice(0, 4).join('');
  const boxes = '\\u0378\\u0379\\u0380\\u0381'.slice(0, han.length);
  const canvas = document.createElement('canvas');
  canvas.width = 400; canvas.height = 100;
  const ctx = canvas.getContext('2d');
  const font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const draw = text => { ctx.clearRect(0, 0, 400, 100); ctx.font = font; ctx.fillText(text, 0, 70);
                         return canvas.toDataURL(); };
  ctx.font = font;
  return {han: han, sameAsBoxes: draw(han) === draw(boxes), lang: document.documentElement.lang,
          emPerGlyph: ctx.measureText(han).width / han.length / parseFloat(style.fontSize)};
})()"""
#: what a page shows a reader, and every box in its article wider than the box itself
PAGE_STATE = """(() => {
  const visible = el => el.offsetParent !== null && el.getBoundingClientRect().width > 0;
  const article = document.querySelector('article') || document.body;
  const overflowing = [];
  for (const wrap of article.querySelectorAll('.md-typeset__scrollwrap')) {
    if (visible(wrap) && wrap.scrollWidth > wrap.clientWidth + 1) {
      overflowing.push('table "' + (wrap.querySelector('th') || wrap).textContent.trim().slice(0, 40) + '"');
    }
  }
  for (const code of article.querySelectorAll('pre > code')) {
    if (visible(code) && code.scrollWidth > code.clientWidth + 1) overflowing.push('code block');
  }
  return {
    height: document.documentElement.scrollHeight,
    tables: [...article.querySelectorAll('table')].filter(visible).length,
    images: [...document.images].map(i => ({src: i.src, ok: i.complete && i.naturalWidth > 0})),
    heading: (article.querySelector('h1') || {}).textContent || '',
    overflowing: overflowing,
    pageWiderThanScreen: document.documentElement.scrollWidth > window.innerWidth + 1,
  };
})()"""
#: every visible cell of the article narrower than its longest word, with that width: the cell's content laid out
#: at its min-content width, where the browser breaks lines only where its line-breaking rules allow (between words,
#: between Chinese characters, after a hyphen) and never inside a word. A card's cell is as wide as the screen
#: allows, so only a word wider than the screen breaks there: not counted.
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
  return narrow;
})()"""
#: whether cards.js has checked the page's tables, after the theme wrapped them: its tables are final
CARDS_CHECKED = "() => 'fwCardsChecked' in document.documentElement.dataset"
#: the first card's label and display, and how many tables are cards
FIRST_CARD = """() => ({
  first: [...document.querySelectorAll('article table[data-fw-cards] td[data-label]')]
           .slice(0, 1).map(td => [td.dataset.label, getComputedStyle(td).display]),
  cards: document.querySelectorAll('article table[data-fw-cards]').length,
})"""


def find_chromium() -> str | None:
    return os.environ.get("FWBENCH_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


class SubPathHandler(SimpleHTTPRequestHandler):
    """Serves the site at / and at SUB_PATH, answering a missing page with 404.html as GitHub Pages does."""

    def translate_path(self, path: str) -> str:
        return super().translate_path("/" + path[len(SUB_PATH) :] if path.startswith(SUB_PATH) else path)

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # keep the test output readable
        pass


@pytest.fixture(scope="module")
def server(built_site):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(SubPathHandler, directory=str(built_site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (the dev extra)")
    chromium = find_chromium()
    if chromium is None:
        pytest.skip("chromium not found (install it with `make chromium`, as `make test` does)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


def site_pages(built_site: Path) -> list[str]:
    """Every page of the built site (the 404 page apart), site-relative."""
    return sorted(
        p.relative_to(built_site).as_posix()
        for p in built_site.rglob("*.html")
        if p.name != "404.html" and "assets" not in p.parts
    )


def watched(page) -> list[str]:
    """The console errors, uncaught exceptions and failed loads of ``page``, as they come; a load aborted because the
    tour moved on (the favicon of the page before) is no failure of the page."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "requestfailed",
        lambda request: None if request.failure == "net::ERR_ABORTED" else errors.append(f"failed: {request.url}"),
    )
    return errors


def visit(page, errors: list[str], url: str) -> tuple[dict, list[str]]:
    """Open ``url`` and return what it shows and the errors it caused."""
    errors.clear()
    page.goto(url, wait_until="load")
    page.wait_for_function(CARDS_CHECKED)
    return page.evaluate(PAGE_STATE), list(errors)


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.fixture(scope="module")
def tours(browser, server, built_site) -> dict[str, dict[str, dict]]:
    """Every page opened once at each width, by width, by page: what it shows (``PAGE_STATE``), the errors it caused,
    its cards (``FIRST_CARD``) and, on a phone, its cells narrower than their longest word (``NARROW_CELLS``); the main
    pages screenshotted. One tour per width serves every test of a page's looks: each tour takes about 20 s."""
    found: dict[str, dict[str, dict]] = {}
    for device, viewport in VIEWPORTS.items():
        page = browser.new_page(viewport=viewport, device_scale_factor=1)
        watching = watched(page)
        found[device] = {}
        for path in site_pages(built_site):
            state, errors = visit(page, watching, server + path)
            if path in SHOT_PAGES:
                assert (
                    screenshot(page, f"{device}-{path.removesuffix('.html').replace('/', '-')}").stat().st_size > 1000
                )
            narrow = page.evaluate(NARROW_CELLS) if device == "phone" else []
            found[device][path] = state | {"errors": errors, "narrow": narrow, "cards": page.evaluate(FIRST_CARD)}
        page.close()
    return found


@pytest.mark.parametrize("device", VIEWPORTS)
def test_every_page_reads_well(tours, device):
    """Each page: a heading, its tables, its images loaded, no console error, no table wider than its box at
    1366 px; on a phone, at most PHONE_SCROLLING_ALLOWED pages with anything wider than its box."""
    pages = list(tours[device])
    assert len(pages) >= 34 and sum(p.startswith("zh/") for p in pages) == len(pages) // 2
    problems, scrolling = [], {}
    for path, state in tours[device].items():
        if state["errors"]:
            problems.append(f"{path}: console errors {state['errors']}")
        broken = [i["src"] for i in state["images"] if not i["ok"]]
        if broken:
            problems.append(f"{path}: images not loaded {broken}")
        wanted = MIN_TABLES.get(path.removeprefix("zh/"), 0)  # a Chinese twin shows the same tables
        if state["tables"] < wanted:
            problems.append(f"{path}: {state['tables']} visible tables, expected ≥ {wanted}")
        if not state["heading"]:
            problems.append(f"{path}: no page heading")
        if state["pageWiderThanScreen"]:
            problems.append(f"{path}: the page is wider than the screen")
        tables = [o for o in state["overflowing"] if o.startswith("table")]
        if device == "desktop" and tables:
            problems.append(f"{path}: wider than their box at 1366 px: {tables}")
        if state["overflowing"]:
            scrolling[path] = state["overflowing"]
    if device == "phone" and len(scrolling) > len(LANGUAGES) * PHONE_SCROLLING_ALLOWED:
        problems.append(f"{len(scrolling)} pages scroll sideways on a phone: {scrolling}")
    assert not problems, "\n".join(problems)


def test_no_cell_is_narrower_than_its_longest_word_on_a_phone(tours):
    found = {path: state["narrow"][:5] for path, state in tours["phone"].items() if state["narrow"]}
    assert not found, "\n".join(f"{path}: {cells}" for path, cells in found.items())
    assert any(state["cards"]["cards"] for state in tours["phone"].values()), (
        "no table was wide enough to become cards: the test would not see them fail"
    )


def test_a_table_becomes_cards_on_a_phone_only(tours):
    """The first page with cards at 390 px: each cell labelled with its column's header, shown as a block; the same
    page at 1366 px, where its tables fit, keeps them."""
    path = next(path for path, state in tours["phone"].items() if state["cards"]["cards"])
    ((header, display),) = tours["phone"][path]["cards"]["first"]
    assert header and display == "block", path
    assert tours["desktop"][path]["cards"]["cards"] == 0, path


@pytest.mark.parametrize("device", DESKTOPS)
def test_no_table_is_a_stack_of_cards_on_a_desktop(tours, device):
    """Every page in both languages, at 1366 and at 1100 px: a desktop reader reads a table across its rows, so none
    is turned into cards (a wide one scrolls in its own box)."""
    found = {path: state["cards"]["cards"] for path, state in tours[device].items() if state["cards"]["cards"]}
    assert not found, f"tables as cards at {VIEWPORTS[device]['width']} px: {found}"


#: a table of ``columns`` columns of long words added to the page's article, and the width it takes
WIDE_TABLE = """columns => {
  const cells = tag => [...Array(columns).keys()].map(i => `<${tag}>configuration${i}</${tag}>`).join('');
  const table = document.createElement('table');
  table.id = 'fw-wide';
  table.innerHTML = `<thead><tr>${cells('th')}</tr></thead><tbody><tr>${cells('td')}</tr></tbody>`;
  document.querySelector('article').append(table);
  return table.scrollWidth;
}"""


def cards_after_resize(page, width: int) -> bool:
    """Whether the added wide table is cards once the window is ``width`` px wide and cards.js has checked again."""
    page.evaluate("() => delete document.documentElement.dataset.fwCardsChecked")
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_function(CARDS_CHECKED)
    return page.evaluate("() => 'fwCards' in document.getElementById('fw-wide').dataset")


def test_a_table_wider_than_its_box_stays_a_table_on_a_desktop_and_is_cards_below(browser, server):
    """cards.js on a table far wider than its box: a table at 1366 and 1100 px (it scrolls in its box), cards at 900
    px and on a phone, a table again when the window widens."""
    page = browser.new_page(viewport=VIEWPORTS["laptop"], device_scale_factor=1)
    page.goto(server + "results/speed.html", wait_until="load")
    page.wait_for_function(CARDS_CHECKED)
    assert page.evaluate(WIDE_TABLE, 20) > VIEWPORTS["desktop"]["width"]
    desktop, laptop, phone = (VIEWPORTS[device]["width"] for device in ("desktop", "laptop", "phone"))
    widths = (desktop, laptop, 900, phone, laptop)  # each differs from the one before: a resize each
    assert [cards_after_resize(page, width) for width in widths] == [False, False, True, True, False]
    page.close()


#: the home page's height at 1366×900, in screens: the answer per device class, then links to the rest
HOME_SCREENS = 3


@pytest.mark.parametrize("path", ["index.html", "zh/index.html"])
def test_the_home_page_is_at_most_three_screens_on_a_desktop(tours, path):
    viewport = VIEWPORTS["desktop"]
    height = tours["desktop"][path]["height"]
    assert height <= HOME_SCREENS * viewport["height"], f"{path}: {height} px at {viewport['width']} px"


#: the first two blocks of the home page's article after its heading, by what they are
FIRST_BLOCKS = """() => [...document.querySelector('article').children]
  .filter(el => el.tagName !== 'H1' && el.offsetParent !== null && !el.matches('a.md-content__button'))
  .slice(0, 2)
  .map(el => el.matches('.fw-answer') ? 'answer' : el.querySelector('img.fw-answer-chart') ? 'chart' : el.tagName)"""


@pytest.mark.parametrize("path", ["index.html", "zh/index.html"])
def test_on_a_phone_the_first_answer_and_its_chart_come_before_anything_else(browser, server, path):
    page = browser.new_page(viewport=VIEWPORTS["phone"], device_scale_factor=1)
    page.goto(server + path, wait_until="load")
    assert page.evaluate(FIRST_BLOCKS) == ["answer", "chart"], path
    page.close()


#: what the home page's answer says first, per language: it must be read in the first screen
ANSWER_STARTS = {"index.html": "CPUs · Test CPU @ 2.0GHz (CPU, ", "zh/index.html": "CPU · Test CPU @ 2.0GHz（CPU，"}
FIRST_SCREEN_PX = 900


@pytest.mark.parametrize("device", ["desktop", "phone"])
@pytest.mark.parametrize("path", ANSWER_STARTS)
def test_the_home_pages_answer_is_in_the_first_screen(browser, server, path, device):
    """The first answer's sentences (drawn from the leads) end within the first 900 px, at 1366 px and on a phone."""
    page = browser.new_page(viewport=VIEWPORTS[device], device_scale_factor=1)
    page.goto(server + path, wait_until="load")
    box = page.locator(".fw-answer").first.bounding_box()
    answer = page.locator(".fw-answer").first.text_content().strip()
    assert answer.startswith(ANSWER_STARTS[path]), answer
    assert box["y"] + box["height"] <= FIRST_SCREEN_PX, f"{path} at {device}: the answer ends at {box}"
    screenshot(page, f"{device}-answer-{path.removesuffix('.html').replace('/', '-')}")
    page.close()


def test_framework_names_never_break_inside_the_word(browser, server):
    """A table header naming a framework is one line on a phone, in Chinese too (no "TensorFlo w")."""
    page = browser.new_page(viewport=VIEWPORTS["phone"], device_scale_factor=1)
    for path in ("zh/index.html", "zh/results/speed.html"):
        page.goto(server + path, wait_until="load")
        broken = page.evaluate(
            """names => [...document.querySelectorAll('article th')]
                 .filter(th => names.includes(th.textContent.trim()) && th.offsetParent !== null)
                 .filter(th => { const r = document.createRange(); r.selectNodeContents(th);
                                 return r.getClientRects().length > 1; })
                 .map(th => th.textContent.trim())""",
            ["PyTorch", "TensorFlow", "JAX"],
        )
        assert not broken, f"{path}: broken over lines: {broken}"
    page.close()


def test_opened_from_disk_every_navigation_link_opens_a_page(browser, built_site):
    page = browser.new_page(viewport=VIEWPORTS["desktop"])
    page.goto((built_site / "index.html").as_uri())
    links = page.eval_on_selector_all("nav.md-nav--primary a.md-nav__link[href]", "els => els.map(e => e.href)")
    targets = sorted({link.split("#")[0] for link in links if link.startswith("file:")})
    assert len(targets) >= 17
    for target in targets:
        assert target.endswith(".html"), f"{target}: a directory, which a browser shows as a file listing"
        page.goto(target)
        assert page.locator("article h1").count() == 1, target
    page.close()


def test_404_page_works_under_a_project_sub_path(browser, server):
    page = browser.new_page(viewport=VIEWPORTS["desktop"])
    response = page.goto(f"{server.rstrip('/')}{SUB_PATH}no/such/page.html", wait_until="load")
    assert response.status == 404
    styled = page.evaluate("getComputedStyle(document.querySelector('.md-header')).position")
    assert styled in ("sticky", "fixed"), "the 404 page's stylesheet did not load under the sub-path"
    home = page.get_attribute("a.md-header__button.md-logo", "href")
    assert home.startswith(SUB_PATH)
    page.close()


def test_chinese_pages_draw_their_text_with_a_cjk_font(browser, server):
    """The Chinese home, speed and debugging pages: screenshotted, marked zh, their heading's Han characters drawn
    as glyphs rather than empty boxes (fonts-noto-cjk installed)."""
    page = browser.new_page(viewport=VIEWPORTS["desktop"], device_scale_factor=1)
    errors = watched(page)
    for path in CHINESE_PAGES:
        visit(page, errors, server + path)
        assert not errors, f"{path}: {errors}"
        glyphs = page.evaluate(CJK_GLYPHS)
        assert glyphs["lang"] == "zh" and len(glyphs["han"]) >= 2, (path, glyphs)
        assert not glyphs["sameAsBoxes"] and glyphs["emPerGlyph"] > 0.9, f"{path}: CJK text drawn as boxes {glyphs}"
        assert screenshot(page, f"desktop-{path.removesuffix('.html').replace('/', '-')}").stat().st_size > 1000
    page.close()


def test_the_language_switcher_moves_between_twin_pages(browser, server):
    page = browser.new_page(viewport=VIEWPORTS["desktop"])
    page.goto(server + "results/speed.html")
    for code, path, heading in (
        ("zh", "zh/results/speed.html", "3.1 训练速度对比"),
        ("en", "results/speed.html", "3.1 Training speed"),
    ):
        # the link itself leads to the twin; following it by hand keeps Material's click handler (which checks the
        # other language's sitemap and, when that check is slow, falls back to its home page) out of the test
        link = page.locator(f'a.md-select__link[hreflang="{code}"]')
        page.goto(urljoin(page.url, link.get_attribute("href")))
        assert page.url == server + path
        assert page.evaluate("document.documentElement.lang") == code
        assert page.text_content("article h1").strip().startswith(heading)
    page.close()


def test_chinese_search_finds_a_chinese_word(browser, server):
    page = browser.new_page(viewport=VIEWPORTS["desktop"])
    page.goto(server + "zh/index.html", wait_until="load")
    # the search worker builds its index after the page loads: wait for the box to say "type to start searching"
    # (Material's own words, in the page's __config)
    ready = page.evaluate(
        "JSON.parse(document.getElementById('__config').textContent).translations['search.result.placeholder']"
    )
    box = page.locator("input.md-search__input")  # the header's search box, shown at desktop width
    box.click()
    page.wait_for_function(
        "text => (document.querySelector('.md-search-result__meta') || {}).textContent === text", arg=ready
    )
    box.fill("显存")  # typed as an input method would insert it, then a key released: Material reads on keyup
    box.press("End")
    results = page.locator(".md-search-result__item")
    results.first.wait_for(timeout=10_000)
    assert "显存" in results.first.text_content()
    page.close()
