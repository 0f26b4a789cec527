"""File-name-safe identifiers made from free text (machine ids, for one)."""

from __future__ import annotations

import re


def slug(text: str) -> str:
    """Lower-case ``text`` into a file-name-safe identifier: runs of anything but a-z and 0-9 become one ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "unknown"
