"""The interpreters a framework runs in (``runners envs``): the environments of other framework versions
(``versions``), the CUDA environments of an NVIDIA machine (``gpu``), how one is built (``build``), which Python
holds which framework (``interpreters``) and those a matrix runs in (``matrix``). It may import ``runners.measure``,
``runners.workloads`` and ``runners.frameworks``, and ``runners.matrix`` and ``runners.executors`` beside it; never
``runners.probes`` or the command-line modules (tests/runners/test_runners_layers.py).
"""
