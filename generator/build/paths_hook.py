"""mkdocs hook (``hooks`` in mkdocs.yml): no page shows a path of the machine that recorded or built it.

Records quote the machine they ran on: tracebacks, output folders, the command of a bisect. Every page's Markdown
goes through ``generator.views.repository.portable_paths`` before it is rendered, so the site reads the same
whoever built it, and names no home directory.
"""

from __future__ import annotations

from generator.views.repository import portable_paths


def on_page_markdown(markdown: str, **_kwargs) -> str:
    """The page's Markdown with its absolute paths made portable."""
    return portable_paths(markdown)
