"""mkdocs hook (``hooks`` in mkdocs.yml): the repository's address in every page's header.

mkdocs.yml sets ``repo_url`` from ``$FWBENCH_REPO_URL``, which the Pages workflow sets to the repository it builds;
where that is unset, the checkout's ``origin`` remote gives it (``generator.views.repository.repository_url``), so a
fork's site links to the fork. No address, no link: the reproduce page then says how to find the code from the
site's own address. ``edit_uri`` stays unset: every page but the design page is
generated, and has no file of its own to edit.
"""

from __future__ import annotations

from urllib.parse import urlparse

from generator.views.repository import repository_url
from generator.views.sitedata import REPO_ROOT


def repository_name(url: str) -> str:
    """How the header names a repository: its path (``owner/fwbench``), its host when it has no path."""
    parsed = urlparse(url if "://" in url else "ssh://" + url.replace(":", "/", 1))
    return parsed.path.strip("/").removesuffix(".git") or parsed.netloc


#: the names mkdocs gives a repository from its host alone: the header shows its path (``owner/fwbench``) instead
HOST_NAMES = ("GitHub", "GitLab", "Bitbucket")


def on_config(config):
    """Fill ``repo_url`` from the checkout when mkdocs.yml leaves it unset, and name it by its path in the header."""
    url = repository_url(config.repo_url, REPO_ROOT)
    if url and (not config.repo_url or config.repo_name in HOST_NAMES):
        config.repo_url, config.repo_name = url, repository_name(url)
    return config
