"""Importing torchax where PyTorch no longer has some of the aten operators its tables name.

torchax 0.0.13 names aten operators in its decomposition, autocast and operator tables, among them the named-tensor
overloads (``aten.prod.dim_Dimname``, …) that PyTorch 2.13 removed and ``aten.cholesky``, which 2.14 removed; its
import (or its environment's creation) then raises AttributeError. ``torchax_environment`` makes torchax's environment
while a lookup of an aten operator or overload this PyTorch lacks returns a placeholder that matches no operator (the
tables simply lack those entries; no fwbench model calls them), and restores PyTorch's lookups afterwards. Nothing
installed is changed. It is applied only where the plain way fails; ``missing`` then lists the names it stood in
for, and ``SHIM`` is the name records and pages give it.
"""

from __future__ import annotations

import contextlib
import importlib
import sys

SHIM = "torchax-missing-aten-ops"

#: the aten names the shim stood in for while torchax was imported (empty: not applied)
missing: list[str] = []


class MissingOperator:
    """Stands for an aten operator or overload this PyTorch does not have: hashable, equal only to itself, never an
    operator; its attributes (overloads) are missing too."""

    def __init__(self, qualified_name: str):
        self.qualified_name = qualified_name

    def __getattr__(self, overload: str) -> MissingOperator:
        if overload.startswith("__"):
            raise AttributeError(overload)
        return _stand_in(f"{self.qualified_name}.{overload}")

    def __repr__(self) -> str:
        return f"<aten operator missing from this PyTorch: {self.qualified_name}>"


def _stand_in(name: str) -> MissingOperator:
    if name not in missing:
        missing.append(name)
    return MissingOperator(name)


@contextlib.contextmanager
def missing_aten_operators_as_placeholders():
    """Within the block, ``torch.ops.aten.<op>`` or ``torch.ops.aten.<op>.<overload>`` that this PyTorch lacks is a
    ``MissingOperator`` instead of an AttributeError; other namespaces (``torch.ops.xla``, whose absence torchax
    checks for) answer as before."""
    from torch._ops import OpOverloadPacket, _OpNamespace

    lookups = {OpOverloadPacket: OpOverloadPacket.__getattr__, _OpNamespace: _OpNamespace.__getattr__}

    def tolerant(original, aten_name):
        def lookup(owner, key: str):
            try:
                return original(owner, key)
            except AttributeError:
                name = aten_name(owner)
                if name is None or key.startswith("__"):
                    raise
                return _stand_in(f"{name}.{key}")

        return lookup

    OpOverloadPacket.__getattr__ = tolerant(
        lookups[OpOverloadPacket],
        lambda p: p._qualified_op_name.replace("::", ".") if p._qualified_op_name.startswith("aten::") else None,
    )
    _OpNamespace.__getattr__ = tolerant(lookups[_OpNamespace], lambda n: n.name if n.name == "aten" else None)
    try:
        yield
    finally:
        for cls, original in lookups.items():
            cls.__getattr__ = original


def torchax_environment():
    """torchax's default environment (which loads its operator tables on first use), made plainly where that works,
    else under ``missing_aten_operators_as_placeholders`` (``missing`` then names what was stood in for). Any other
    error propagates."""
    try:
        return importlib.import_module("torchax").default_env()
    except AttributeError as exc:
        if "aten" not in str(exc):
            raise
        for name in [m for m in sys.modules if m == "torchax" or m.startswith("torchax.")]:
            del sys.modules[name]  # the half-imported package, so that the import below starts afresh
    with missing_aten_operators_as_placeholders():
        return importlib.import_module("torchax").default_env()


#: the second shim's name: torchax's autocast table completed with two entries of PyTorch's own autocast lists
AUTOCAST_SHIM = "torchax-autocast-convolution-linear"


@contextlib.contextmanager
def pytorch_autocast_entries():
    """Within the block, torchax's autocast casts ``aten.convolution`` and ``linear`` to the lower precision, as
    PyTorch's autocast does (both are on its lower-precision list). torchax 0.0.13's table names ``aten.conv2d`` and
    ``aten.linear`` instead, which a module's forward never reaches under torchax (it sees ``aten.convolution`` and
    the functional ``linear``), so without this its bf16 policy would leave every convolution and the classifier in
    float32."""
    import torch
    from torchax import amp

    added = {
        op: amp.CastPolicy.LOWER_PRECISION_FP
        for op in (torch.ops.aten.convolution.default, torch._C._nn.linear)
        if op not in amp.autocast_policy
    }
    amp.autocast_policy.update(added)
    try:
        yield sorted(map(str, added))
    finally:
        for op in added:
            del amp.autocast_policy[op]


#: the third shim's name: PyTorch's batch norm semantics in place of torchax's
BATCH_NORM_SHIM = "torchax-batch-norm-pytorch-semantics"


def pytorch_batch_norm(
    input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5
):
    """``torch.nn.functional.batch_norm`` as PyTorch's own kernels compute it, written in torch operators for
    torchax: statistics in at least float32 (``var_mean``, one pass), the output in the input's dtype, and in
    training the running statistics updated in place (momentum, unbiased variance). torchax 0.0.13's batch norm
    instead returns float32 for a bfloat16 input (its float32 weight promotes it), so every BatchNorm, ReLU and
    residual after a bf16 convolution ran and was stored in float32, and it drops the running statistics."""
    import torch

    compute = torch.float32 if input.dtype in (torch.bfloat16, torch.float16) else input.dtype
    x = input.to(compute)
    channels = (0, *range(2, input.ndim))
    if training:
        var, mean = torch.var_mean(x, dim=channels, correction=0)
        if running_mean is not None:
            count = input.numel() // input.shape[1]
            with torch.no_grad():
                running_mean.copy_((1 - momentum) * running_mean + momentum * mean.to(running_mean.dtype))
                unbiased = var * (count / max(count - 1, 1))
                running_var.copy_((1 - momentum) * running_var + momentum * unbiased.to(running_var.dtype))
    else:
        mean, var = running_mean.to(compute), running_var.to(compute)
    shape = (1, -1) + (1,) * (input.ndim - 2)
    y = (x - mean.reshape(shape)) * torch.rsqrt(var.reshape(shape) + eps)
    if weight is not None:
        y = y * weight.to(compute).reshape(shape)
    if bias is not None:
        y = y + bias.to(compute).reshape(shape)
    return y.to(input.dtype)


@contextlib.contextmanager
def pytorch_batch_norm_in(env):
    """Within the block, torchax environment ``env`` runs ``torch.nn.functional.batch_norm`` as
    ``pytorch_batch_norm``; afterwards as before. The environment is torchax's one per process: set for good, the
    override reached every other torchax program the process traced afterwards, such as the reference loop
    ``benchmarks/idiomatic_loop.py`` measures the trainer against. torchax has an operator's override but not its
    removal, so the block restores its table's entry itself."""
    import torch

    op = torch.nn.functional.batch_norm
    before = env._ops.get(op)
    env.override_op_definition(op, pytorch_batch_norm)
    try:
        yield
    finally:
        if before is None:
            del env._ops[op]
        else:
            env._ops[op] = before
