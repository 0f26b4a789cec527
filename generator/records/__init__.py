"""Records layer: the records under ``results/`` read, validated, identified and summarised — no verdict, no page.

Loading (one results root or several), identity, aggregation, machines, metrics, the matrices' plans, the
submission check, the other record kinds (probes, bisects, ecosystem snapshots, platform issues), code size and
statistics. May import ``fwbench``, the shared bottom modules (``generator.i18n``, ``generator.data_text``,
``generator.message``) and itself; never ``verdicts``, ``views``, ``site`` or ``build``
(``tests/generator/test_layers.py`` checks it).
"""
