"""Each framework's own attention computes the written-out attention in float32, and bf16 computes in bfloat16.

Float32 on the CPU, three clipped AdamW steps of the parity batch on the small model (``arch.TINY``; at 128 tokens for
the Pallas kernel, whose key blocks are 128 tokens, run in Pallas' TPU interpreter): the fused path's logits, losses
and per-step updates against the written-out path's in the same framework. The bounds follow the reference losses'
rule (``reference_losses.bound_of``: ten times the worst measured difference, rounded up to a power of ten), from the
differences measured on the 2-core CPU VM (torch 2.14.1, TensorFlow 2.21.0 with Keras 3.15.1, JAX 0.10.2 with
Flax 0.12.8, torchax 0.0.13). Adam's updates divide by √v, which amplifies float32's rounding where a gradient is
near zero: their bound is the loosest.
"""

from __future__ import annotations

import pytest

from fwbench.frameworks import FRAMEWORKS
from runners.workloads.gpt import parity
from runners.workloads.resnet18.reference_losses import bound_of

#: the worst fused-vs-written-out differences measured (float32, 3 steps): logits 2.7e-7 (torch), 3.0e-7 (jax), 0
#: (tensorflow and torchax, whose fused paths compute the same operations in the same order, the scale 1/√16 a power
#: of two); losses 9.0e-8 (torch), 9.2e-8 (jax's Pallas kernel at 128 tokens), 0 elsewhere; updates 1.09e-3 (torch),
#: 1.44e-3 (jax), 0.99e-3 (jax's Pallas kernel)
FUSED_MEASURED = {"logits": 3.0e-7, "loss": 9.2e-8, "update": 1.44e-3}
#: the worst bf16-vs-float32 differences measured (the written-out float32 run against bf16 with the precision's
#: fused attention): the losses 1.3e-5 (torch) to 2.8e-5 (jax), the logits 3.7e-3 (jax) to 4.2e-3 (torch)
BF16_LOSS_MEASURED = 2.8e-5
#: bfloat16 keeps 8 bits of mantissa: logits computed in it differ from float32's by far more than float32's rounding
#: (measured at least 3.7e-3), which shows the bf16 run did compute in bfloat16
BF16_LOGITS_AT_LEAST = 1e-3

WRITTEN_OUT = parity.planned("eager", "float32", "fp32", attention="written-out")
FUSED = parity.planned("eager", "float32", "fp32", attention="fused")
BF16 = parity.planned("eager", "float32", "bf16")
#: the Pallas kernel and its written-out reference, at the kernel's shortest context
FLASH = {
    path: parity.planned("eager", "float32", "fp32", attention=path, context=128)
    for path in ("written-out", "pallas-flash")
}


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    """Every framework's captures, each framework's made by one process (JAX's with the Pallas pair): by capture, by
    framework. Eager where a framework has it (JAX and torchax train compiled only)."""
    plans = {name: (WRITTEN_OUT, FUSED, BF16, *(FLASH.values() if name == "jax" else ())) for name in FRAMEWORKS}
    return parity.capture_plans(plans, tmp_path_factory.mktemp("gpt-attention"))


@pytest.mark.slow
@pytest.mark.parametrize("name", FRAMEWORKS)
def test_the_fused_attention_computes_the_written_out_one_in_float32(captures, name):
    report = parity.compare(captures[WRITTEN_OUT][name], captures[FUSED][name])
    print(f"{name} fused vs written out (float32):", report)
    for quantity, measured in FUSED_MEASURED.items():
        assert report[quantity] <= bound_of(measured), f"{name}: {quantity} {report[quantity]:.1e}"
    before, after = parity.mask_leak(captures[FUSED][name])
    assert before == 0.0 and after > 1e-2


@pytest.mark.slow
def test_jax_s_pallas_flash_kernel_computes_the_written_out_attention_in_float32(captures):
    written, flash = (captures[FLASH[path]]["jax"] for path in ("written-out", "pallas-flash"))
    report = parity.compare(written, flash)
    print("jax pallas-flash vs written out (float32, 128 tokens):", report)
    for quantity, measured in FUSED_MEASURED.items():
        assert report[quantity] <= bound_of(measured), f"{quantity} {report[quantity]:.1e}"
    before, after = parity.mask_leak(flash)
    assert before == 0.0 and after > 1e-2


@pytest.mark.slow
@pytest.mark.parametrize("name", FRAMEWORKS)
def test_bf16_computes_in_bfloat16_and_keeps_the_float32_losses(captures, name):
    report = parity.compare(captures[WRITTEN_OUT][name], captures[BF16][name])
    print(f"{name} bf16 vs float32:", report)
    assert report["loss"] <= bound_of(BF16_LOSS_MEASURED)
    assert report["logits"] >= BF16_LOGITS_AT_LEAST, f"{name}: bf16's logits are float32's: no bfloat16 ran"
    assert parity.mask_leak(captures[BF16][name])[0] == 0.0
