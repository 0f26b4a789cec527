"""The three frameworks train the same GPT: same logits, same causal mask, same clipped AdamW update.

Float64 runs isolate the semantics from rounding: there the three agree to about 1e-15 in the logits and 2e-12 in
the per-step updates (measured), while the built-ins this workload had to write out would each move the updates far
beyond the bound (measured on the same run: ``torch.nn.utils.clip_grad_norm_``'s ‖g‖ + 1e-6 by 3e-7, Keras' AdamW
by 0.5; ``runners.workloads.gpt.recipe``). Adam is nearly blind to one constant gradient scale, so the clip shows
only where it is active and its scale changes between steps: a test checks that it is. The compiled float32 run is
the smoke test: the three learn the grammar, with the same losses to float32's rounding.

Each framework's own attention computes the written-out attention in float32, and bf16 computes in bfloat16. Float32
on the CPU, three clipped AdamW steps of the parity batch on the small model (``arch.TINY``; at 128 tokens for the
Pallas kernel, whose key blocks are 128 tokens, run in Pallas' TPU interpreter): the fused path's logits, losses and
per-step updates against the written-out path's in the same framework. The bounds follow the reference losses' rule
(``reference_losses.bound_of``: ten times the worst measured difference, rounded up to a power of ten), from the
differences measured on the 2-core CPU VM (torch 2.14.1, TensorFlow 2.21.0 with Keras 3.15.1, JAX 0.10.2 with Flax
0.12.8, torchax 0.0.13). Adam's updates divide by √v, which amplifies float32's rounding where a gradient is near
zero: their bound is the loosest.

The two checks share one process per framework (``captures``): the attention's were a file of their own, whose four
processes each imported a framework again (about 15 CPU-s of the suite's 2-core run).
"""

import itertools

import numpy as np
import pytest

from fwbench.frameworks import FRAMEWORKS
from runners.workloads import WORKLOADS, make_trainer, workload
from runners.workloads.gpt import arch, data, parity, recipe
from runners.workloads.resnet18.reference_losses import bound_of

PAIRS = list(itertools.combinations(FRAMEWORKS, 2))
SMOKE_STEPS = 24


#: the float64 runs under ``fp32`` and ``default`` (the fused attention kernels), and the compiled float32 run
FLOAT64 = {precision: parity.planned("eager", "float64", precision) for precision in ("fp32", "default")}
COMPILED = parity.planned("compiled", "float32", steps=SMOKE_STEPS)


#: the worst fused-vs-written-out differences measured (float32, 3 steps): logits 2.7e-7 (torch), 3.0e-7 (jax), 0
#: (tensorflow and torchax, whose fused paths compute the same operations in the same order, the scale 1/√16 a power
#: of two); losses 9.0e-8 (torch), 9.2e-8 (jax's Pallas kernel at 128 tokens), 0 elsewhere; updates 1.09e-3 (torch),
#: 1.44e-3 (jax), 0.99e-3 (jax's Pallas kernel)
FUSED_MEASURED = {"logits": 3.0e-7, "loss": 9.2e-8, "update": 1.44e-3}
#: the worst bf16-vs-float32 differences measured (the written-out float32 run against bf16 with the precision's
#: fused attention): the losses 1.3e-5 (torch) to 7.1e-5 (jax, its residual stream in bfloat16), the logits 4.1e-3
#: (tensorflow) to 4.9e-3 (jax)
BF16_LOSS_MEASURED = 7.1e-5
#: bfloat16 keeps 8 bits of mantissa: logits computed in it differ from float32's by far more than float32's rounding
#: (measured at least 4.1e-3), which shows the bf16 run did compute in bfloat16
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
    """Every capture the tests below read, each framework's made by one process (JAX's with the Pallas pair): by
    capture, by framework. Eager where a framework has it (JAX and torchax train compiled only)."""
    attention_plan = (WRITTEN_OUT, FUSED, BF16)
    plans = {
        name: (*FLOAT64.values(), COMPILED, *attention_plan, *(FLASH.values() if name == "jax" else ()))
        for name in FRAMEWORKS
    }
    return parity.capture_plans(plans, tmp_path_factory.mktemp("gpt"))


@pytest.fixture(scope="module")
def float64_captures(captures):
    return captures[FLOAT64["fp32"]]


@pytest.fixture(scope="module")
def fused_float64_captures(captures):
    """The ``default`` precision's model: each framework's fused attention kernel."""
    return captures[FLOAT64["default"]]


@pytest.fixture(scope="module")
def float32_compiled_captures(captures):
    return captures[COMPILED]


@pytest.mark.slow
@pytest.mark.parametrize("a,b", PAIRS)
def test_float64_logits_loss_and_adamw_update_agree(float64_captures, a, b):
    report = parity.compare(float64_captures[a], float64_captures[b])
    print(f"{a} vs {b} (float64):", report)
    assert report["logits"] < 1e-10
    assert report["loss"] < 1e-10
    assert report["update"] < 1e-10, "the per-step updates differ: clipping or AdamW semantics differ"


@pytest.mark.slow
@pytest.mark.parametrize("name", FRAMEWORKS)
def test_a_later_token_never_moves_an_earlier_logit(float64_captures, name):
    before, after = parity.mask_leak(float64_captures[name])
    assert before == 0.0, f"{name}: a token sees a later one (earlier logits moved by {before:.1e})"
    assert after > 1e-2, "the changed token did not reach the model: the check would pass for any model"


@pytest.mark.slow
@pytest.mark.parametrize("name", FRAMEWORKS)
def test_the_fused_attention_kernel_computes_the_written_out_attention(float64_captures, fused_float64_captures, name):
    """``scaled_dot_product_attention``, ``jax.nn.dot_product_attention`` and ``keras.ops.dot_product_attention``
    (the ``default`` precision's) give the written-out model's logits and updates in float64, and stay causal. JAX's
    kernel casts the scores to float32 for its softmax whatever their dtype ("always carried out in fp32",
    ``jax._src.nn.functions._dot_product_attention_core``), so its float64 run agrees to float32's rounding: its
    logits (measured 1.1e-8) and losses (2.7e-11), not Adam's updates, which amplify that rounding (4e-4)."""
    report = parity.compare(float64_captures[name], fused_float64_captures[name])
    print(f"{name} fused vs written out (float64):", report)
    if name == "jax":
        assert report["logits"] < 1e-6 and report["loss"] < 1e-9
    else:
        assert report["logits"] < 1e-10 and report["update"] < 1e-10
    before, after = parity.mask_leak(fused_float64_captures[name])
    assert before == 0.0 and after > 1e-2


@pytest.mark.slow
def test_the_clip_is_active_in_every_compared_step(float64_captures):
    """At each compared step's starting weights, the batch's gradient norm exceeds the clip (PyTorch, float64)."""
    torch = pytest.importorskip("torch")
    from runners.frameworks.torch.gpt import GPT, load_weights

    _, tokens, targets = parity.inputs()
    captured, norms = float64_captures["torch"], []
    for step in range(parity.PARITY_STEPS):
        model = GPT(arch.TINY).double()
        load_weights(model, {n: captured[f"step{step}.{n}"] for n in arch.weight_names(arch.TINY)})
        logits = model(torch.from_numpy(tokens[step]).long())
        torch.nn.functional.cross_entropy(
            logits.flatten(0, 1), torch.from_numpy(targets[step]).long().flatten()
        ).backward()
        norms.append(float(torch.nn.utils.get_total_norm([p.grad for p in model.parameters()])))
    assert min(norms) > recipe.CLIP_NORM, norms
    assert len(set(norms)) == len(norms), "one scale every step would hide the clip from Adam"


@pytest.mark.slow
@pytest.mark.parametrize("a,b", PAIRS)
def test_compiled_float32_trainers_learn_the_grammar_alike(float32_compiled_captures, a, b):
    ca, cb = float32_compiled_captures[a], float32_compiled_captures[b]
    losses = {name: [float(c[f"loss{s}"]) for s in range(1, SMOKE_STEPS + 1)] for name, c in ((a, ca), (b, cb))}
    for name, curve in losses.items():
        assert np.mean(curve[-4:]) < curve[0] - 1.0, f"{name} did not learn in {SMOKE_STEPS} steps: {curve}"
    assert parity.compare(ca, cb, steps=SMOKE_STEPS)["logits"] < 1e-5
    assert np.max(np.abs(np.subtract(losses[a], losses[b]))) < 1e-4 * losses[a][0]
    assert parity.mask_leak(ca)[0] == parity.mask_leak(cb)[0] == 0.0


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


def test_parameter_count_flops_and_decay_come_from_the_architecture():
    assert arch.trainable_param_count() == 10_844_160
    assert arch.flops_per_token() == 2 * (10_844_160 - 256 * 384) + 4 * 6 * 256 * 384 == 23_851_008
    assert workload("gpt").flops_per_sample() == arch.flops_per_token()
    weights = arch.init_weights(0)
    assert sum(v.size for v in weights.values()) == arch.trainable_param_count()
    assert {k: v.shape for k, v in weights.items()} == arch.param_shapes()
    decayed = {k for k in weights if arch.is_decayed(k)}
    assert decayed == {
        f"blocks.{b}.{layer}.kernel" for b in range(6) for layer in ("attn.qkv", "attn.proj", "mlp.fc", "mlp.proj")
    }
    residual, other = weights["blocks.0.attn.proj.kernel"].std(), weights["blocks.0.attn.qkv.kernel"].std()
    assert residual == pytest.approx(arch.INIT_STD / np.sqrt(12), rel=0.02) and other == pytest.approx(0.02, rel=0.02)


def test_the_grammar_stream_is_fixed_and_the_targets_are_the_next_tokens():
    stream = data.token_stream(5_000)
    assert np.array_equal(stream, data.token_stream(5_000)) and stream.dtype == np.uint8
    assert bytes(stream[:4]) == b"The " and set(bytes(stream).decode("ascii")) <= set(
        "abcdefghijklmnopqrstuvwxyzTSOEA ."
    )
    windows = data.load(data.NAME, None, 40, 4, config=arch.TINY).train  # 32 tokens of context
    x, y = data.epoch_batches(windows, seed=0, epoch=0, batch_size=8)
    assert x.shape == y.shape == (5, 8, 32) and np.array_equal(x[..., 1:], y[..., :-1])
    again, _ = data.epoch_batches(windows, seed=0, epoch=1, batch_size=8)
    assert not np.array_equal(x, again), "each epoch has its own order"


def test_the_registry_names_both_workloads_and_refuses_what_a_framework_does_not_train_in():
    assert list(WORKLOADS) == ["resnet18", "gpt"]
    assert workload("resnet18").trainer_module("jax") == "runners.frameworks.jax.resnet18"
    assert workload("gpt").trainer_module("jax") == "runners.frameworks.jax.gpt"
    assert workload("gpt").precisions == workload("resnet18").precisions == ("fp32", "default", "bf16")
    with pytest.raises(ValueError, match="unknown workload 'bert'; choose from resnet18, gpt"):
        workload("bert")
    with pytest.raises(ValueError, match="jax trains only in mode compiled"):
        make_trainer("gpt", "jax", {}, "eager")
