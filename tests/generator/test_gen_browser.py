"""A real browser: headless Chromium opens every page of the built site and checks what a reader sees.

Driven through the DevTools protocol over a websocket (no Playwright download needed). Screenshots go
to tests/screenshots/ (git-ignored).
"""

from __future__ import annotations

import functools
import itertools
import json
import shutil
import subprocess
import threading
import time
import urllib.request
from base64 import b64decode
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCREENSHOTS = Path(__file__).resolve().parent.parent / "screenshots" / "generator"
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--remote-debugging-port=0",
    "--window-size=1280,900",
]
#: page -> tables that must be visible on it (collapsed blocks excluded)
MIN_TABLES = {
    "": 2,
    "results/speed/": 3,
    "results/memory/": 1,
    "results/accuracy/": 1,
    "devex/debugging/": 1,
    "devex/code-size/": 1,
    "devex/toolchains/": 1,
    "choose/": 1,
    "beyond/community/": 1,
    "beyond/maintenance/": 1,
    "appendix/claims/": 3,
    "method/": 2,
}
PAGE_STATE = """(() => {
  const visible = el => el.offsetParent !== null && el.getBoundingClientRect().height > 0;
  return {
    tables: [...document.querySelectorAll('article table')].filter(visible).length,
    images: [...document.images].map(i => ({src: i.src, ok: i.complete && i.naturalWidth > 0})),
    heading: (document.querySelector('article h1') || {}).textContent || '',
  };
})()"""


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class DevTools:
    """Minimal DevTools-protocol client: commands with ids, events buffered until read."""

    def __init__(self, ws_url: str):
        import websocket

        self.socket = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
        self.ids = itertools.count(1)
        self.events: list[dict] = []

    def send(self, method: str, **params) -> dict:
        message_id = next(self.ids)
        self.socket.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == message_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str, timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for index, event in enumerate(self.events):
                if event.get("method") == method:
                    return self.events.pop(index)
            self.socket.settimeout(max(0.1, deadline - time.monotonic()))
            self.events.append(json.loads(self.socket.recv()))
        raise TimeoutError(method)

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and failed loads seen so far (then forgotten)."""
        found = []
        for event in self.events:
            params = event.get("params", {})
            if event.get("method") == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append(
                    " ".join(str(a.get("value", a.get("description"))) for a in params.get("args", []))
                )
            elif event.get("method") == "Runtime.exceptionThrown":
                found.append(params["exceptionDetails"].get("text", "exception"))
            elif event.get("method") == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(f"{params['entry']['text']} {params['entry'].get('url', '')}")
        self.events.clear()
        return found


@pytest.fixture(scope="module")
def server(built_site):
    handler = functools.partial(QuietHandler, directory=str(built_site))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output readable
        pass


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium = find_chromium()
    if chromium is None:
        pytest.skip("chromium not found (install it with `make chromium`, as `make test` does)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    process = subprocess.Popen(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline or process.poll() is not None:
                pytest.fail(f"chromium did not start (exit code {process.poll()})")
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        targets = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10).read())
        page = next(t for t in targets if t["type"] == "page")
        client = DevTools(page["webSocketDebuggerUrl"])
        for domain in ("Page", "Runtime", "Log"):
            client.send(f"{domain}.enable")
        yield client
        client.socket.close()
    finally:
        process.terminate()
        process.wait(timeout=10)


def visit(browser: DevTools, url: str) -> dict:
    browser.events.clear()
    browser.send("Page.navigate", url=url)
    browser.wait_for("Page.loadEventFired")
    time.sleep(0.3)  # let late scripts (search worker, palette) report their errors
    return browser.send("Runtime.evaluate", expression=PAGE_STATE, returnByValue=True)["result"]["value"]


def screenshot(browser: DevTools, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    path.write_bytes(b64decode(browser.send("Page.captureScreenshot", format="png")["data"]))
    return path


def test_every_page_renders_tables_images_and_no_console_errors(browser, server, built_site):
    browser.send(
        "Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False
    )
    pages = sorted(p.parent.relative_to(built_site).as_posix() for p in built_site.rglob("index.html"))
    pages = ["" if p == "." else p + "/" for p in pages]
    assert len(pages) >= 14
    problems = []
    for path in pages:
        state = visit(browser, server + path)
        errors = browser.errors()
        if errors:
            problems.append(f"{path or '/'}: console errors {errors}")
        broken = [i["src"] for i in state["images"] if not i["ok"]]
        if broken:
            problems.append(f"{path or '/'}: images not loaded {broken}")
        if state["tables"] < MIN_TABLES.get(path, 0):
            problems.append(f"{path or '/'}: {state['tables']} visible tables, expected ≥ {MIN_TABLES[path]}")
        if not state["heading"]:
            problems.append(f"{path or '/'}: no page heading")
        shot = screenshot(browser, (path.strip("/") or "index").replace("/", "-"))
        assert shot.stat().st_size > 1000
    assert not problems, "\n".join(problems)


def test_speed_page_on_a_phone(browser, server):
    browser.send(
        "Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=2, mobile=True
    )
    state = visit(browser, server + "results/speed/")
    assert state["tables"] >= 3
    width = browser.send(
        "Runtime.evaluate",
        returnByValue=True,
        expression="document.documentElement.scrollWidth <= window.innerWidth + 1",
    )["result"]
    assert width["value"], "the page scrolls sideways on a phone: wide tables must scroll inside their box"
    screenshot(browser, "phone-results-speed")
    browser.send("Emulation.clearDeviceMetricsOverride")
