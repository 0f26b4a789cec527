"""One folder per framework, side by side with the same shape; the registry (``fwbench.frameworks``) finds them here.

``<name>/__init__.py`` declares the framework's registry entry (``FRAMEWORK``) and imports no framework; beside it,
one module per workload: ``resnet18_model`` (the ResNet-18 with weight import/export in the canonical layout of
``runners.workloads.resnet18.arch``) and ``resnet18`` (its ``Trainer``), ``gpt`` (the GPT and its ``Trainer``), all
with the methods of the protocol in ``trainer.py``, in the same order, with the same names for the same things;
``probes`` (the planted bugs) and ``compile_cache`` (the variables that put its compiler's cache in a run's cache
directory). ``trainer.make_trainer`` builds a trainer; ``precision.py`` holds the precision policies every trainer
applies. Import a framework's modules only inside the process that runs that framework. With
``runners.workloads`` it is the bottom layer: it imports no other runners package
(tests/runners/test_runners_layers.py).
"""
