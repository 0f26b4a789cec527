"""fwbench runners: train the same ResNet-18 in PyTorch, TensorFlow and JAX, and probe their error messages.

Importing this package imports no framework; each framework is imported only inside the process
that benchmarks it.
"""
