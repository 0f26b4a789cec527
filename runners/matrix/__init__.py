"""The matrix (``runners matrix``): a profile's configurations run round after round, each in a fresh process.

``driver`` runs it (its entry point ``run_matrix``); its parts say what runs and in which order (``order``,
``repeats``, ``budget``, ``site_plan``, ``plan_preview``), what was done before (``store``) and what the runs show
(``comparisons``, with their ``figures`` and ``pairs``, and ``summary`` of its ``outcome``), on the machines it
surveys (``survey``). It may import ``runners.measure``, ``runners.workloads``, ``runners.frameworks``, ``runners.envs``
and the executors' boundary (``runners.executors.boundary``); never the executors themselves, ``runners.probes`` or the
command-line modules (tests/runners/test_runners_layers.py).
"""
