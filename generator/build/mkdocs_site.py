"""``mkdocs build --strict`` once per language on records already loaded, handed to the page script by ``handoff``.

English at the site's root, Chinese under ``zh/``, both from the same records.
"""

from __future__ import annotations

import os
from pathlib import Path

from generator.build.handoff import Handoff, handing
from generator.i18n import LANGUAGES, SOURCE
from generator.records.load import Results
from generator.views.sitedata import REPO_ROOT

CONFIG_FILE = REPO_ROOT / "mkdocs.yml"


def language_builds() -> list[tuple[Path, str]]:
    """(mkdocs config, folder under the site directory) per language: the source language's mkdocs.yml at the
    root first (its build empties the site directory), then each translation's mkdocs.<code>.yml in <code>/."""
    return [(CONFIG_FILE, "") if code == SOURCE else (REPO_ROOT / f"mkdocs.{code}.yml", code) for code in LANGUAGES]


def build_site(
    results: Results,
    site_dir: Path,
    source_root: Path | None = None,
    site_url: str | None = None,
    this_machine: str | None = None,
) -> None:
    """Run ``mkdocs build --strict`` on the loaded ``results`` into ``site_dir``, once per language: English at
    its root, Chinese under ``zh/``, both from the same records.

    ``site_url`` is where the site will be served (e.g. a GitHub Pages project URL): mkdocs then gives the 404
    page links that work at any depth under it. Raises mkdocs' Abort/ConfigurationError on a broken page or
    link (strict mode). ``this_machine``: the machine id of the machine building the site (``make site``'s), which
    the home page answers for first.
    """
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")  # the theme's end-of-life banner is not a build problem
    with handing(Handoff(results, source_root.resolve() if source_root else None, this_machine)):
        for config_file, folder in language_builds():
            overrides = {"site_url": site_url.rstrip("/") + "/" + (folder + "/" if folder else "")} if site_url else {}
            config = load_config(
                config_file=str(config_file), site_dir=str((site_dir / folder).resolve()), strict=True, **overrides
            )
            build(config)
