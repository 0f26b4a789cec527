"""ResNet-18 on CIFAR-10, the article's workload: its architecture as framework-neutral data (``arch``), its recipe
(``recipe``), its data (``data``), the float32 parity check of the three frameworks (``parity``) and the reference
losses submissions are checked against (``reference_losses``), and its model in each framework, with weight
import/export in the canonical layout of ``arch`` (``<framework>_resnet``, as the GPT's are ``<framework>_gpt``); its
trainers are ``runners/frameworks/<framework>_train.py``. Like every workload it may import
``runners.workloads`` and ``runners.frameworks`` only (tests/runners/test_runners_layers.py).
"""
