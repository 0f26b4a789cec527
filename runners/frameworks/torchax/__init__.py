"""PyTorch via torchax: its registry entry. Its folder holds its trainers of PyTorch's models (``resnet18``, ``gpt``),
the shim that lets torchax run on this PyTorch (``shim``) and its compile cache's variables (``compile_cache``).
"""

from fwbench.framework_entry import Framework

FRAMEWORK = Framework(
    # PyTorch's model and recipe run as a JAX program (torchax, from the PyTorch/XLA project): how PyTorch
    # trains on a TPU. Its trainer is functional (jax.value_and_grad, optax), since loss.backward() does not
    # work under torchax; runners/frameworks/torchax/shim.py lets torchax 0.0.13 import on PyTorch >= 2.13.
    name="torchax",
    display_order=4,
    label="PyTorch via torchax",
    colour="#E69F00",
    marker="D",
    import_name="torchax",
    distributions=("torchax",),
    training_modes=("compiled",),
    probe_modes=(),
    layer_class="Linear",
    companions=("torch", "jax", "jaxlib", "libtpu", "optax", "numpy"),
    stackoverflow_tags=(),
    github_repos=(),
    pypi_packages=("torchax",),
    compile_cache=("jax",),  # it compiles through JAX: its cache is JAX's
    out_of_memory=("RESOURCE_EXHAUSTED", "Out of memory", "out of memory"),  # it runs through JAX: its errors are JAX's
    model_of="torch",
    devices=("tpu",),
)
