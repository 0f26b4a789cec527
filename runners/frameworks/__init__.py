"""The model and the training step in each framework, side by side with the same shape.

``<framework>_model.py``: the CIFAR ResNet-18 and its weight import/export in the canonical layout of
``runners.workloads.resnet18.arch``. ``<framework>_train.py``: a ``Trainer`` with the methods of the protocol in
``trainer.py``, in the same order, with the same names for the same things. The framework keys are those of
``fwbench.frameworks``; ``trainer.make_trainer`` builds a trainer. Import a framework's modules only inside the
process that runs that framework. ``precision.py``: the precision policies every workload's trainers apply. With
``runners.workloads`` it is the bottom layer: it imports no other runners package
(tests/runners/test_runners_layers.py).
"""
