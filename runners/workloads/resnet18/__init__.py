"""ResNet-18 on CIFAR-10, the article's workload: its registry entry (``WORKLOAD``), its architecture as
framework-neutral data (``arch``), its recipe (``recipe``), its data (``data``: the data set and its pipeline in
``dataset``, CIFAR-10's archive in ``cifar_archive``), the float32 parity check of the three frameworks (``parity``)
and the reference losses submissions are checked against (``reference_losses``). Each framework's model, with weight
import/export in the canonical layout of ``arch``, and its trainer are in its folder
(``runners/frameworks/<framework>/resnet18_model.py`` and ``resnet18.py``). Like every workload it may import
``runners.workloads`` and ``runners.frameworks`` only (tests/runners/test_runners_layers.py).
"""

from fwbench.workload_entry import Workload

WORKLOAD = Workload(
    name="resnet18",
    display_order=1,
    arch="runners.workloads.resnet18.arch",
    lr_schedule="runners.workloads.lr_schedule",
    data="runners.workloads.resnet18.data",
    datasets=("synthetic", "cifar10"),
    trainers="runners.frameworks.{framework}.resnet18",
    sample="image",
    flops="flops_per_image",
    precisions=("fp32", "default", "bf16"),
    model_name="resnet18-cifar",
)
