"""Views layer: what a page shows — cells, grids, table views, charts, downloads, headline, findings, ``SiteData``.

The ecosystem tables are here too, and ``SiteData``: everything the pages are built from. Here the verdicts'
language-neutral texts become words (``verdict_text``) and numbers are formatted (``text_format``).

May import ``fwbench``, the shared bottom modules, ``generator.records``, ``generator.verdicts`` and itself; never
``site`` or ``build``.
"""
