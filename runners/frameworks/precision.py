"""The precision policies every workload's trainers apply, and the one that is the parity reference.

docs/design.md ("Precision") says why there are three; ``runners.frameworks.trainer`` checks a policy before a
framework is imported, and the record states the policy with the dtype it computes in.
"""

from __future__ import annotations

#: precision policy (``RunConfig.precision``, the record's ``config.precision``) -> the dtype its convolutions and
#: matmuls compute in (docs/design.md, "Precision"). The trainers apply the policy; the record holds what the
#: framework reports after the trainer is built (``Trainer.precision_flags``), compute dtype included.
#:
#: - ``fp32``: true float32 in all three frameworks, TF32 off everywhere: the parity reference.
#: - ``default``: each framework as installed, no precision setting touched (on Ampere and newer GPUs TF32
#:   convolutions in all three): what the article ran.
#: - ``bf16``: mixed precision as each framework documents it (``torch.autocast``, Keras's ``mixed_bfloat16``
#:   policy, Flax layers with ``dtype=bfloat16``); float32 master weights, optimizer state, BatchNorm statistics
#:   and loss in all three, every other setting as in ``default``.
PRECISION_POLICIES = {"fp32": "float32", "default": "float32", "bf16": "bfloat16"}
#: the policy whose runs are the parity reference and whose record ids are those from before the policy was a field
REFERENCE_PRECISION = "fp32"
