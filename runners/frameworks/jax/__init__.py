"""JAX with Flax NNX and optax: its registry entry. Its folder holds its ResNet-18 (``resnet18_model``) and trainer
(``resnet18``), its GPT and trainer (``gpt``), its planted bugs (``probes``) and its compile cache's variables
(``compile_cache``).
"""

from fwbench.framework_entry import Framework

FRAMEWORK = Framework(
    name="jax",
    display_order=3,
    label="JAX",
    colour="#0072B2",
    marker="^",
    import_name="flax.nnx",
    distributions=("jax",),
    training_modes=("compiled",),
    probe_modes=("eager", "compiled"),
    layer_class="Linear",
    # the CUDA plugin is a release of its own (jax[cuda13] / jax[cuda12]): a GPU record names it
    companions=("jaxlib", "jax-cuda13-plugin", "jax-cuda12-plugin", "flax", "optax", "numpy"),
    stackoverflow_tags=("jax", "flax"),
    github_repos=("jax-ml/jax", "google/flax"),
    pypi_packages=("jax", "flax"),
    cuda_build=("gpu-jax", "cuda{cuda}"),
    compile_cache=("jax",),
    out_of_memory=("RESOURCE_EXHAUSTED", "Out of memory", "out of memory"),
    devices=("cpu", "gpu", "tpu"),
)
