"""fwbench runners: train the same ResNet-18 (and a small GPT) in PyTorch, TensorFlow and JAX, and probe their error
messages.

The command-line entry points sit here (``cli``, ``matrix_cli``, ``envs_cli``, ``benchmark_script_cli``); the work is
in packages by job, each importing only its own layer and those below (tests/runners/test_runners_layers.py), bottom
first: ``workloads`` and ``frameworks`` (what trains), ``measure`` (one run and its record), ``matrix``, ``executors``
and ``envs`` (many runs, where and in which interpreter), ``probes`` (the error-message probes).

Importing this package imports no framework; each framework is imported only inside the process
that benchmarks it.
"""
