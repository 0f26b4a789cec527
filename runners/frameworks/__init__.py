"""The ResNet-18 training step in each framework, side by side with the same shape.

``<framework>_train.py``: a ``Trainer`` of the framework's CIFAR ResNet-18 (``runners.workloads.resnet18``'s
``<framework>_resnet``, the model and its weight import/export), with the methods of the protocol in
``trainer.py``, in the same order, with the same names for the same things. The framework keys are those of
``fwbench.frameworks``; ``trainer.make_trainer`` builds a trainer. Import a framework's modules only inside the
process that runs that framework. ``precision.py``: the precision policies every workload's trainers apply. With
``runners.workloads`` it is the bottom layer: it imports no other runners package
(tests/runners/test_runners_layers.py).
"""
