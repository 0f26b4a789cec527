"""PyPI download counts from pypistats.org (PyPI only: conda and the PyTorch wheel index are not counted)."""

from __future__ import annotations

from collections.abc import Callable

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from ecosystem.errors import CollectionError
from ecosystem.metric import SourceMetrics
from ecosystem.transport import get_json

HOST = "pypistats.org"
API = f"https://{HOST}/api"
CAVEAT = (
    "downloads from PyPI only; conda, the PyTorch wheel index (download.pytorch.org) and mirrors are "
    "not counted, and CI downloads are included"
)


def make_session(max_wait: float) -> requests.Session:
    """A session that retries 429 and 5xx responses, never waiting longer than ``max_wait`` seconds.

    Network failures are not retried here (``connect``, ``read`` and ``other`` are 0) but by ``recent_downloads``,
    the same way for every source.
    """
    retry = Retry(
        total=3,
        connect=0,
        read=0,
        other=0,
        backoff_factor=1.0,
        backoff_max=max_wait,
        retry_after_max=max_wait,
        status_forcelist=(429, 500, 502, 503, 504),
        raise_on_status=False,
    )
    session = requests.Session()
    session.mount("https://", HTTPAdapter(max_retries=retry))
    return session


def recent_downloads(
    session: requests.Session, package: str, max_wait: float, sleep: Callable[[float], None] | None = None
) -> int:
    """Downloads of ``package`` in the last month, from ``/api/packages/{package}/recent``."""
    url = f"{API}/packages/{package}/recent"
    body = get_json(session, url, "pypistats", max_wait, sleep)
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict) or "last_month" not in data:
        raise CollectionError(f"pypistats {url}: response lacks field 'data.last_month'")
    return data["last_month"]


def collect_pypi(
    session_factory: Callable[[], requests.Session],
    packages: tuple[str, ...],
    max_wait: float,
    metrics: SourceMetrics,
    progress: Callable[[str], None],
) -> None:
    """Collect ``downloads_last_month`` for ``packages`` into ``metrics``."""
    session = session_factory()
    for package in packages:
        method = {
            "endpoint": f"{API}/packages/{package}/recent",
            "window_days": 30,
            "sample_size": None,
            "caveat": CAVEAT,
        }

        def downloads(package: str = package, method: dict = method) -> None:
            metrics.set(package, "downloads_last_month", recent_downloads(session, package, max_wait), method)

        metrics.step(package, ("downloads_last_month",), method, downloads)
        progress(f"pypi {package}")
