"""PyTorch: its registry entry. Its folder holds its ResNet-18 (``resnet18_model``) and trainer (``resnet18``),
its GPT and trainer (``gpt``), its planted bugs (``probes``) and its compile cache's variables (``compile_cache``).
"""

from fwbench.framework_entry import Framework

FRAMEWORK = Framework(
    name="torch",
    display_order=1,
    label="PyTorch",
    aliases=("pytorch",),
    colour="#D55E00",
    marker="o",
    import_name="torch",
    distributions=("torch",),
    training_modes=("compiled", "eager"),
    probe_modes=("eager", "compiled"),
    layer_class="Linear",
    companions=("numpy",),
    stackoverflow_tags=("pytorch",),
    github_repos=("pytorch/pytorch",),
    pypi_packages=("torch",),
    cuda_build=("gpu-torch", ""),
    compile_cache=("inductor", "triton"),
    out_of_memory=("OutOfMemoryError", "out of memory"),
    not_measured=(("tpu", "PyTorch reaches a TPU through torchax: see PyTorch via torchax"),),
)
