"""The model and the training step in each framework, side by side with the same shape.

``*_model.py``: the CIFAR ResNet-18 and its weight import/export in the canonical layout of
``runners.arch``. ``*_train.py``: a ``Trainer`` with the same methods in every framework. Import a
module only inside the process that runs that framework.
"""

FRAMEWORKS = ("torch", "tensorflow", "jax")
#: modes each framework offers; JAX has no eager training mode (un-jitted JAX is op-by-op dispatch)
MODES = {"torch": ("compiled", "eager"), "tensorflow": ("compiled", "eager"), "jax": ("compiled",)}
#: the module that must be importable for each framework
IMPORT_NAMES = {"torch": "torch", "tensorflow": "tensorflow", "jax": "flax.nnx"}


def trainer_class(framework: str):
    """The framework's Trainer class (imports that framework)."""
    if framework == "torch":
        from runners.frameworks.torch_train import Trainer
    elif framework == "tensorflow":
        from runners.frameworks.tf_train import Trainer
    elif framework == "jax":
        from runners.frameworks.jax_train import Trainer
    else:
        raise ValueError(f"unknown framework {framework!r}; choose from {', '.join(FRAMEWORKS)}")
    return Trainer
