"""Where the matrix's configurations run: the boundary (``boundary``: jobs in, start and end events out), here one at
a time (``local``) or on the nodes of a Ray cluster (``ray``, ``ray_cluster``), each configuration's process tree
ended with it (``lifetime``). It may import ``runners.measure``, ``runners.workloads``, ``runners.frameworks``,
``runners.envs`` and ``runners.matrix``; ``boundary`` sits below the matrix and imports none of them but the first
three. Never ``runners.probes`` or the command-line modules (tests/runners/test_runners_layers.py).
"""
