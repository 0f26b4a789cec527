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
    # bf16: the dense layers, attention and the tied head in bfloat16; the residual stream, embeddings, LayerNorms,
    # softmax and loss in float32, alike in all four (docs/design.md, "Workloads")
    precisions=("fp32", "default", "bf16"),
    model_name="gpt-bytes-6x384",
    samples_per_item="context",
    sizes="SIZES",
    attention="runners.workloads.gpt.attention",
)
