"""A TPU's float32 tables say how a TPU computes float32 matrix products (one bfloat16 pass by default, six in strict
FP32: the peak its MFU is taken against); its bfloat16 tables and other devices' tables do not. The machines page
names the best MFU an accelerator's records reached: the ceiling they show for the network on that chip."""

from __future__ import annotations

from pathlib import Path

import gen_records
import pytest
from one_page import page_alone
from test_gen_tpu import TPU_TITLE, TPU_VERSIONS, tpu_hardware

from fwbench.records import write_record
from generator.i18n import language
from generator.records.load import load_results
from generator.site import home
from generator.views.sitedata import REPO_ROOT, SiteData
from runners.measure.profiles import expand
from runners.measure.record import ok_record

NOTE = {"en": "A TPU multiplies float32 matrices in bfloat16 passes", "zh": "TPU 以 bfloat16 遍数计算 float32 矩阵乘法"}
#: the fastest TPU configuration of ``tpu_results``
FASTEST = ("jax", "bf16", 1024)


def fastest(config) -> bool:
    return (config.framework, config.precision, config.batch_size) == FASTEST


def tpu_results(root: Path, precisions: tuple[str, ...] = ("default", "bf16"), cpu: bool = True) -> list[dict]:
    """The TPU's quick runs in ``precisions`` (``FASTEST`` the fastest, 30,000 images/s; the others 20,000), beside
    a CPU's, written under ``root``; the TPU's records are returned."""
    configs = [c for p in precisions for c in expand("quick", device="tpu", version_of=TPU_VERSIONS.get, precision=p)]
    runs = [
        ok_record(
            config,
            tpu_hardware(),
            "2026-12-05T10:00:00.000Z",
            "2026-12-05T10:01:00.000Z",
            gen_records.one_epoch(config, 30_000.0 if fastest(config) else 20_000.0),
            software=gen_records.software(),
            command=["runners", "matrix", "--device", "tpu"],
        )
        for config in configs
    ]
    for record in [*runs, *(gen_records.run(fw, 32) for fw in ("torch", "jax") if cpu)]:
        write_record(root / "runs" / record["hardware"]["machine_id"] / f"{record['record_id']}.json", record)
    return runs


@pytest.mark.parametrize("language", ["en", "zh"])
def test_only_a_tpus_float32_tables_say_how_it_multiplies_float32(tmp_path, language):
    tpu_results(tmp_path)
    speed = page_alone(load_results(tmp_path), "results/speed.md", language)
    sections = {part.split("\n", 1)[0]: part for part in speed.split("\n### ")[1:]}
    noted = {heading for heading, text in sections.items() if NOTE[language] in text}
    tpu = {heading for heading in sections if heading.startswith(TPU_TITLE.split(" (")[0])}
    assert len(tpu) == 2 and len(noted) == 1 and noted < tpu
    assert "bfloat16" not in noted.pop().split(" · ")[-1]


def test_the_machines_page_names_the_best_mfu_an_accelerators_records_reached(tmp_path):
    runs = tpu_results(tmp_path)
    best = max(runs, key=lambda record: record["mfu"]["value"])
    assert (best["framework"]["name"], best["config"]["precision"], best["config"]["batch_size"]) == FASTEST
    machines = page_alone(load_results(tmp_path), "results/machines.md")
    rows = [line for line in machines.splitlines() if line.startswith("| Best MFU in these records |")]
    assert rows == [
        f"| Best MFU in these records | {best['mfu']['value']:.2f} of the BF16 peak (JAX, bfloat16, batch 1024) |"
    ]


def test_strict_fp32s_mfu_against_its_emulated_peak_is_rescaled_to_the_chips_own_before_it_can_be_the_best(tmp_path):
    runs = tpu_results(tmp_path)
    strict = tpu_results(tmp_path, ("fp32",), cpu=False)
    assert max(r["mfu"]["value"] for r in strict) > max(r["mfu"]["value"] for r in runs)  # six bf16 passes per FLOP
    best = max(runs, key=lambda record: record["mfu"]["value"])
    machines = page_alone(load_results(tmp_path), "results/machines.md")
    rows = [line for line in machines.splitlines() if line.startswith("| Best MFU in these records |")]
    assert rows == [
        f"| Best MFU in these records | {best['mfu']['value']:.2f} of the BF16 peak (JAX, bfloat16, batch 1024) |"
    ]


OPENINGS = [
    ("en", "**TPUs** · TPU v5 lite (TPU, 1 chip, 1x1): No framework is ahead yet: 9 undecided between JAX and PyTorch"),
    ("zh", "**TPU** · TPU v5 lite（TPU，1 个芯片，1x1）：尚无框架领先：JAX 与 PyTorch via torchax 之间 9 项未定"),
]


@pytest.mark.parametrize(("lang", "opening"), OPENINGS)
def test_one_machines_three_precisions_are_answered_as_one_machine(tmp_path, lang, opening):
    tpu_results(tmp_path, ("fp32", "default", "bf16"), cpu=False)
    with language(lang):
        (tpus,) = home.context(SiteData(load_results(tmp_path), REPO_ROOT))["answers"]
    assert tpus.paragraph.startswith(opening) and "machines" not in tpus.paragraph
