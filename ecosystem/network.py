"""A quick reachability check, so that an offline collection fails in seconds instead of after retries."""

from __future__ import annotations

import socket


def reachable(host: str, timeout: float = 5.0) -> bool:
    """Whether a TCP connection to ``host``:443 opens within ``timeout`` seconds (DNS included)."""
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            return True
    except OSError:
        return False
