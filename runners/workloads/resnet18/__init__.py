"""ResNet-18 on CIFAR-10, the article's workload: its architecture as framework-neutral data (``arch``), its recipe
(``recipe``), its data (``data``), the float32 parity check of the three frameworks (``parity``) and the reference
losses submissions are checked against (``reference_losses``). Each framework's model, with weight import/export in
the canonical layout of ``arch``, and its trainer are in its folder
(``runners/frameworks/<framework>/resnet18_model.py`` and ``resnet18.py``). Like every workload it may import
``runners.workloads`` and ``runners.frameworks`` only (tests/runners/test_runners_layers.py).
"""
