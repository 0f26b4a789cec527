"""Behind the design page (docs/design.md): where torchax's ResNet-18 step loses to JAX's on a TPU (``step_hlo``)."""
