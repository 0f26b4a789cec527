"""benchmarks/investigations/design/step_hlo.py's reading of a compiled program: instructions by kind and XLA's
costs, on small jitted functions whose programs are known (the ResNet-18 steps themselves are the benchmark's, not a
test's)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from benchmarks.investigations.design import step_hlo


def compiled(function, *shapes):
    return jax.jit(function).lower(*(jnp.ones(shape, jnp.float32) for shape in shapes)).compile()


def test_a_layout_change_shows_as_a_transpose_or_copy_and_a_sum_as_a_reduce():
    plain = step_hlo.step_profile(compiled(lambda a: a * 2.0, (64, 32)))
    moved = step_hlo.step_profile(compiled(lambda a: (a.T * 2.0).sum(axis=0) + a.T.sum(), (64, 32)))
    assert plain["reduce"] == 0 and moved["reduce"] >= 1
    assert moved["transpose"] + moved["copy"] + moved["reduce"] > plain["transpose"] + plain["copy"]
    assert moved["all"] > plain["all"] >= 1


def test_xla_counts_the_flops_of_a_matrix_product():
    profile = step_hlo.step_profile(compiled(lambda a, b: a @ b, (64, 32), (32, 16)))
    assert profile["flops"] == 2 * 64 * 32 * 16  # a multiply and an add per term
    assert profile["bytes accessed"] >= 4 * (64 * 32 + 32 * 16 + 64 * 16)  # both inputs read, the output written


def test_instructions_are_read_from_every_computation_and_by_opcode():
    text = """HloModule m
%fused (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %t = f32[4]{0} transpose(f32[4]{0} %p), dimensions={0}
}
ENTRY %main (a: f32[4]) -> f32[] {
  %a = f32[4]{0} parameter(0)
  %f = f32[4]{0} fusion(f32[4]{0} %a), kind=kLoop, calls=%fused
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(f32[4]{0} %f, f32[] %z), dimensions={0}, to_apply=%add
}"""
    kinds = step_hlo.instruction_kinds(text)
    assert kinds == {"parameter": 2, "transpose": 1, "fusion": 1, "constant": 1, "reduce": 1}
