"""A TPU machine on the site: titled as a TPU, its tables holding the frameworks fwbench measures on TPUs (PyTorch
via torchax among them) with MFU, and those it does not measure there named once with why; the CPU pages never
naming a framework fwbench measures only on TPUs."""

from __future__ import annotations

from pathlib import Path

import gen_records
import pytest
from one_page import pages_undrawn

from fwbench.records import write_record
from generator.records.load import load_results
from runners.measure.profiles import expand
from runners.measure.record import ok_record

TPU = "tpu-v5-lite-1x1"
TPU_TITLE = "TPU v5 lite (TPU, 1 chip, 1x1)"
#: the versions the TPU configurations name (the CPU records' frameworks take gen_records.VERSIONS)
TPU_VERSIONS = {"jax": "0.10.2", "torchax": "0.0.13"}
TENSORFLOW_WHY = "TensorFlow reaches a TPU only through its separate TPU build (tensorflow-tpu"


def tpu_hardware() -> dict:
    """The hardware section ``runners run`` records on a one-chip TPU v5 lite host."""
    return {
        **gen_records.hardware(),
        "machine_id": TPU,
        "device_kind": "tpu",
        "device_name": "TPU v5 lite",
        "device_count": 1,
        "tpu_topology": "1x1",
        "libtpu": "0.0.17",
        "fingerprint": None,
    }


def tpu_runs() -> list[dict]:
    """The TPU's strict-FP32 quick configurations (JAX and PyTorch via torchax), each recorded by ``ok_record``."""
    configs = expand("quick", device="tpu", version_of=TPU_VERSIONS.get, precision="fp32")
    assert {c.framework for c in configs} == {"jax", "torchax"}
    return [
        ok_record(
            config,
            tpu_hardware(),
            "2026-12-05T10:00:00.000Z",
            "2026-12-05T10:01:00.000Z",
            gen_records.one_epoch(config, 2000.0 if config.framework == "jax" else 1500.0),
            software=gen_records.software(),
            command=["runners", "matrix", "--device", "tpu"],
        )
        for config in configs
    ]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """The site in both languages from the TPU's runs and a CPU's runs of the three CPU frameworks."""
    root: Path = tmp_path_factory.mktemp("results")
    cpu = [gen_records.run(fw, 32) for fw in ("torch", "tensorflow", "jax")]
    for record in [*tpu_runs(), *cpu]:
        write_record(root / "runs" / record["hardware"]["machine_id"] / f"{record['record_id']}.json", record)
    results = load_results(root)
    return {code: pages_undrawn(results, language=code) for code in ("en", "zh")}


def _sections(page: str) -> dict[str, str]:
    """A page's ``### `` sections (a table each) by heading."""
    return {part.split("\n", 1)[0]: part for part in page.split("\n### ")[1:]}


def test_a_tpu_machine_is_titled_as_a_tpu(pages):
    machines = pages["en"]["results/machines.md"]
    assert f"### {TPU_TITLE} (`{TPU}`)" in machines and "| TPU chips, topology, libtpu | 1, 1x1, 0.0.17 |" in machines
    assert not [name for name, page in pages["en"].items() if isinstance(page, str) and "fingerprint 1x1" in page]
    assert "TPU v5 lite（TPU，1 个芯片，1x1）" in pages["zh"]["results/speed.md"]


def test_torchax_has_a_column_on_the_tpu_tables_and_none_on_the_cpu_ones(pages):
    for name in ("results/speed.md", "results/memory.md", "results/verdicts.md"):
        sections = _sections(pages["en"][name])
        (tpu,) = [text for heading, text in sections.items() if heading.startswith(TPU_TITLE)]
        (cpu,) = [text for heading, text in sections.items() if "(CPU, " in heading]
        assert "| batch | JAX | PyTorch via torchax |" in tpu, name
        assert "| batch | PyTorch | TensorFlow | JAX |" in cpu, name
        assert "torchax" not in cpu, name  # no column, and no "not measured" for a framework measured on TPUs only
    home = pages["en"]["index.md"]
    tpus, cpus = [part.split("</div>", 1)[0] for part in home.split('<div class="fw-answer" markdown>')[1:]]
    assert "undecided between JAX and PyTorch via torchax" in tpus and "TensorFlow was not measured: " in tpus
    assert cpus.strip().startswith("**CPUs** · ") and "torchax" not in cpus


def test_a_framework_not_measured_on_tpus_is_said_once_with_why_in_both_languages(pages):
    speed = pages["en"]["results/speed.md"]
    (tpu,) = [text for heading, text in _sections(speed).items() if heading.startswith(TPU_TITLE)]
    assert speed.count(TENSORFLOW_WHY) == 1 and TENSORFLOW_WHY in tpu
    assert "TensorFlow has no column: fwbench does not measure it on this kind of device." in tpu
    assert "TensorFlow: no run on this machine" not in tpu  # not a gap in this machine's runs
    assert "PyTorch reaches a TPU through torchax" in tpu
    chinese = pages["zh"]["results/speed.md"]
    assert chinese.count("TensorFlow 只能通过其单独的 TPU 版本（tensorflow-tpu，数百兆字节）使用 TPU") == 1
    assert "TensorFlow 没有列：fwbench 不在这类设备上测量它。" in chinese


def test_the_tpu_rows_show_their_mfu(pages):
    (tpu,) = [text for heading, text in _sections(pages["en"]["results/speed.md"]).items() if TPU_TITLE in heading]
    mfu = [line for line in tpu.splitlines() if ": MFU " in line]
    assert [line.split(",")[0] for line in mfu] == ["- JAX compiled"] * 3 + ["- PyTorch via torchax compiled"] * 3
    assert all("of the TPU v5 lite's dense FP32 peak, 32.833 TFLOP/s" in line for line in mfu)
