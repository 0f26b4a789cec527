"""TensorFlow with Keras 3: its registry entry. Its folder holds its ResNet-18 (``resnet18_model``) and trainer
(``resnet18``), its GPT and trainer (``gpt``), its planted bugs (``probes``) and its compile cache's variables
(``compile_cache``).
"""

from fwbench.framework_entry import Framework

FRAMEWORK = Framework(
    name="tensorflow",
    display_order=2,
    label="TensorFlow",
    aliases=("tf",),
    colour="#009E73",
    marker="s",
    import_name="tensorflow",
    distributions=("tensorflow", "tensorflow-cpu"),
    training_modes=("compiled", "eager"),
    probe_modes=("eager", "compiled"),
    layer_class="Dense",
    companions=("keras", "numpy"),
    stackoverflow_tags=("tensorflow", "keras"),
    github_repos=("tensorflow/tensorflow", "keras-team/keras"),
    pypi_packages=("tensorflow",),
    cuda_build=("gpu-tensorflow", "and-cuda"),
    compile_cache=("tensorflow",),
    out_of_memory=("ResourceExhaustedError", "RESOURCE_EXHAUSTED", "Out of memory", "out of memory"),
    not_measured=(
        (
            "tpu",
            "TensorFlow reaches a TPU only through its separate TPU build (tensorflow-tpu, several hundred "
            "megabytes), which fwbench's TPU set-up does not install",
        ),
    ),
)
