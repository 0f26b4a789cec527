"""PyPI download counts from pypistats.org (PyPI only: conda and the PyTorch wheel index are not counted)."""

from __future__ import annotations

from collections.abc import Callable

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from ecosystem.errors import CollectionError
from ecosystem.metric import SourceMetrics

PACKAGES = ("torch", "tensorflow", "jax", "flax")
HOST = "pypistats.org"
API = f"https://{HOST}/api"
CAVEAT = ("downloads from PyPI only; conda, the PyTorch wheel index (download.pytorch.org) and mirrors are "
          "not counted, and CI downloads are included")


def make_session(max_wait: float) -> requests.Session:
    """A session that retries 429 and 5xx responses, never waiting longer than ``max_wait`` seconds."""
    retry = Retry(total=3, backoff_factor=1.0, backoff_max=max_wait, retry_after_max=max_wait,
                  status_forcelist=(429, 500, 502, 503, 504), raise_on_status=False)
    session = requests.Session()
    session.mount("https://", HTTPAdapter(max_retries=retry))
    return session


def recent_downloads(session: requests.Session, package: str, timeout: float = 30) -> int:
    """Downloads of ``package`` in the last month, from ``/api/packages/{package}/recent``."""
    url = f"{API}/packages/{package}/recent"
    try:
        response = session.get(url, timeout=timeout)
    except requests.RequestException as exc:
        raise CollectionError(f"pypistats request failed: {type(exc).__name__}: {exc}") from None
    if response.status_code != 200:
        raise CollectionError(f"pypistats {url}: HTTP {response.status_code}")
    try:
        body = response.json()
    except ValueError as exc:
        raise CollectionError(f"pypistats {url}: malformed JSON: {exc}") from None
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict) or "last_month" not in data:
        raise CollectionError(f"pypistats {url}: response lacks field 'data.last_month'")
    return data["last_month"]


def collect_pypi(session_factory: Callable[[], requests.Session], metrics: SourceMetrics,
                 progress: Callable[[str], None]) -> None:
    """Collect ``downloads_last_month`` for PACKAGES into ``metrics``."""
    session = session_factory()
    for package in PACKAGES:
        method = {"endpoint": f"{API}/packages/{package}/recent", "window_days": 30, "sample_size": None,
                  "caveat": CAVEAT}

        def downloads(package: str = package, method: dict = method) -> None:
            metrics.set(package, "downloads_last_month", recent_downloads(session, package), method)

        metrics.step(package, ("downloads_last_month",), method, downloads)
        progress(f"pypi {package}")
