"""Verdicts layer: every decision the site shows — the claim vocabulary, comparability, leads, accuracy checks, choices.

The article checked against fwbench's records lives in ``generator.verdicts.article``. A verdict is
language-neutral: what it says is numbers, names and message ids with their values (``generator.message``), never
translated text, so it is computed once per build and the views put it in words for each language.

May import ``fwbench``, the shared bottom modules, ``generator.records`` and itself; never ``views``, ``site`` or
``build``.
"""
