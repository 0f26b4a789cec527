"""Every device-class paragraph of the built home page, in both languages, names the two frameworks it compares as
measured and a ratio with its interval, or says why it has none: a site built by `generator build` from a GPU whose
runs decide a lead, a TPU whose single runs decide nothing, and a CPU with older records only."""

from __future__ import annotations

import html
import re

import gen_records
import pytest
from test_gen_tpu import tpu_runs

from fwbench.frameworks import REGISTRY
from fwbench.records import write_record
from generator.cli import main

#: a ratio with its 95 % interval, as every lead is written: 1.25× (1.20–1.31×)
RATIO = re.compile(r"\d+\.\d+× \(\d+\.\d+–\d+\.\d+×\)")
#: the frameworks as measured, the longest name first (PyTorch via torchax before PyTorch)
NAMES = re.compile("|".join(re.escape(e.label) for e in sorted(REGISTRY.values(), key=lambda e: -len(e.label))))
#: what a paragraph with no ratio says instead, per language
WHY_NONE = {
    "en": ("No framework is ahead yet: ", "No verdict between ", "Nothing to compare yet: "),
    "zh": ("尚无框架领先：", "之间没有结论", "尚无可比较的内容："),
}


def write(root, records: list[dict]) -> None:
    for record in records:
        machine = record["hardware"]["machine_id"]
        write_record(root / "runs" / machine / f"{record['record_id']}.json", record)


@pytest.fixture(scope="module")
def paragraphs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """The home page's answer paragraphs as a reader reads them, by language."""
    root = tmp_path_factory.mktemp("home-paragraphs")
    gpu = [
        gen_records.run(fw, 32, seed, seconds=seconds + 0.01 * seed, machine_id=gen_records.GPU_MACHINE)
        for fw, seconds in (("torch", 10.0), ("jax", 12.0))
        for seed in range(3)
    ]
    older = [gen_records.as_v2(gen_records.run(fw, 32, seconds=10.0)) for fw in ("torch", "tensorflow")]
    write(root / "results", [*gpu, *tpu_runs(), *older])
    site = root / "site"
    assert main(["build", "--results", str(root / "results"), "--site-dir", str(site)]) == 0
    found = {}
    for code, path in (("en", site / "index.html"), ("zh", site / "zh" / "index.html")):
        answers = re.findall(r'<div class="fw-answer">(.*?)</div>', path.read_text(encoding="utf-8"), flags=re.S)
        found[code] = [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", a)).split()) for a in answers]
    return found


@pytest.mark.parametrize("code", ["en", "zh"])
def test_every_class_paragraph_names_the_compared_frameworks_and_a_ratio_or_says_why_not(paragraphs, code):
    found = paragraphs[code]
    assert len(found) == 3  # the TPU, the GPU, the CPU
    for paragraph in found:
        names = set(NAMES.findall(paragraph))
        compared = len(names) >= 2 and RATIO.search(paragraph)
        why = [words for words in WHY_NONE[code] if words in paragraph]
        assert compared or why, paragraph
        if why and "Nothing" not in why[0] and "尚无可比较" not in why[0]:
            assert len(names) >= 2, paragraph  # no verdict between two named frameworks
    tpu, gpu, cpu = found
    assert "PyTorch via torchax" in tpu and "JAX" in tpu and not RATIO.search(tpu)  # one run each: undecided
    assert RATIO.search(gpu) and "PyTorch" in gpu and "JAX" in gpu
    assert not RATIO.search(cpu)
