"""A GPT-style decoder-only language model on a byte stream: the second workload beside ResNet-18.

``arch`` (the model as data), ``recipe`` (AdamW, schedule, clipping, batches), ``data`` (the grammar's byte stream)
and, in each framework's folder, ``runners/frameworks/<framework>/gpt.py``, the model and its ``Trainer``;
``parity`` proves the three the same; ``profiles.json`` holds its profiles (quick-gpt, scale-gpt, smoke-gpt). Its
registry entry is ``WORKLOAD``. Importing this package imports no framework.
"""

from fwbench.workload_entry import Workload

WORKLOAD = Workload(
    name="gpt",
    display_order=2,
    words="GPT (6 × 384, bytes)",
    arch="runners.workloads.gpt.arch",
    lr_schedule="runners.workloads.gpt.recipe",
    data="runners.workloads.gpt.data",
    datasets=("grammar",),
    trainers="runners.frameworks.{framework}.gpt",
    sample="token",
    flops="flops_per_token",
    # bf16: each framework's mixed precision (docs/design.md, "Precision"): the dense layers, attention and the tied
    # head in bfloat16 in all four, the loss in float32; PyTorch's autocast, torchax's and the Keras trainer keep the
    # residual stream, embeddings and LayerNorms float32, Flax's dtype makes them bfloat16
    precisions=("fp32", "default", "bf16"),
    model_name="gpt-bytes-6x384",
    samples_per_item="context",
    sizes="SIZES",
    attention="runners.workloads.gpt.attention",
)
