"""No workshop on the product pages: a site built from records as ``runners.measure.record`` writes them (a CPU's and a
TPU's) shows no commit hash, record schema version, kernel build string, raw field path, session, lease or VM, and
says nothing of how the project came by its machines (borrowed, lent, a machine without a package registry)
anywhere a reader reads, in either language; only the raw-data appendix, which is the records, shows them."""

from __future__ import annotations

import html
import re

import gen_records
import pytest
from test_gen_tpu import tpu_runs

from fwbench.records import write_record
from generator.cli import main
from runners.measure.profiles import expand

COMMIT = "0123456789abcdef0123"  # gen_records.software()'s
KERNEL = "6.18.44-fc-v595"
#: the pages that may show the workshop: the raw records, as they are
RAW = {"appendix/raw-data.html"}
#: the design document defines the record format, so it names its schemas and fields, and says on which machines the
#: records were made and how the project came by them; the rest holds for it too
DESIGN_DOCUMENT = {"design.html"}
WORKSHOP = {
    "commit hash": re.compile(rf"{COMMIT[:7]}|\b(?:commits?|提交)\s*[0-9a-f]{{7,40}}\b"),
    "kernel build string": re.compile(re.escape(KERNEL) + r"|\bkernel\s+\d+\.\d+|内核\s*\d+\.\d+"),
    "vm, session or lease": re.compile(r"\b(?:VMs?|sessions?|leases?|leased)\b|虚拟机|会话|租约|租用"),
}
#: what only the design document may say
DESIGN = {
    "how the project came by its machines": re.compile(
        r"\b(?:borrow(?:s|ed|ing)?|lent|lends?|lending)\b|package registry|借用|借来|借到|出借|软件包仓库"
    ),
    "record schema": re.compile(r"fwbench\.(?:run|probe|ecosystem|bisect)/\d"),
    "raw field path": re.compile(r"\b(?:config|memory|timing|hardware|software|accuracy|load)\.[a-z]+_[a-z_]+\b"),
}


def recorded(framework: str, batch_size: int, seed: int, rate: float) -> dict:
    """A quick-profile run on the test CPU as ``runners.measure.record.ok_record`` writes it, booted with ``KERNEL``."""
    (config,) = expand(
        "quick",
        frameworks=[framework],
        modes=["compiled"],
        batch_sizes=[batch_size],
        seeds=[seed],
        device="cpu",
        version_of=gen_records.VERSIONS.get,
    )
    record = gen_records.as_recorded(config, gen_records.one_epoch(config, rate), ["runners", "matrix"])
    record["record_id"] += f"-r{seed}"
    record["hardware"]["fingerprint"]["kernel"] = KERNEL
    return record


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every built HTML page's visible text, both languages, by path: three frameworks at two batch sizes, three runs
    each, and an older record beside them."""
    root = tmp_path_factory.mktemp("workshop")
    runs = root / "results" / "runs" / gen_records.CPU_MACHINE
    records = [
        recorded(framework, batch_size, seed, rate + seed)
        for framework, rate in (("torch", 300.0), ("tensorflow", 250.0), ("jax", 200.0))
        for batch_size in (32, 256)
        for seed in range(3)
    ]
    records.append(gen_records.run("jax", 64, older=True))
    for record in records:
        write_record(runs / f"{record['record_id']}.json", record)
    for record in tpu_runs():  # a TPU: where TensorFlow is not measured, and the page says why
        write_record(
            root / "results" / "runs" / record["hardware"]["machine_id"] / f"{record['record_id']}.json", record
        )
    written = "".join(path.read_text(encoding="utf-8") for path in runs.glob("*.json"))
    assert COMMIT in written and KERNEL in written and '"upgraded_from"' not in written  # what the pages must hide
    site = root / "site"
    assert main(["build", "--results", str(root / "results"), "--site-dir", str(site)]) == 0
    found = {}
    for path in site.rglob("*.html"):
        markup = re.sub(r"<(script|style)\b.*?</\1>", " ", path.read_text(encoding="utf-8"), flags=re.S)
        found[path.relative_to(site).as_posix()] = html.unescape(re.sub(r"<[^>]+>", " ", markup))
    return found


def test_an_older_record_is_named_in_words(pages):
    verdicts = " ".join(pages["results/verdicts.html"].split())
    assert "1 older record (◌): made by an earlier version of fwbench" in verdicts
    assert "1 条旧版记录" in pages["zh/results/verdicts.html"]
    assert "TensorFlow was not measured: " in pages["index.html"]  # the TPU's paragraph says why


def test_no_product_page_shows_the_workshop(pages):
    found = []
    for path, text in sorted(pages.items()):
        page = path.removeprefix("zh/")
        if page in RAW:
            continue
        checks = WORKSHOP if page in DESIGN_DOCUMENT else {**WORKSHOP, **DESIGN}
        for what, pattern in checks.items():
            for match in pattern.finditer(text):
                found.append(f"{path}: {what}: …{text[max(0, match.start() - 50) : match.end() + 20]}…")
    assert not found, "\n".join(found[:20])


def test_the_patterns_find_the_workshop():
    """Each pattern catches what the product pages once showed, so a pass means something."""
    once_shown = {
        "commit hash": "runners before commit bc88ced judged every run's end",
        "kernel build string": "kernel 6.18.44-fc-v595",
        "vm, session or lease": "a third slower in one session on this VM",
        "record schema": "written as fwbench.run/2 and upgraded on read",
        "raw field path": "(the records' config.steps_per_epoch)",
        "how the project came by its machines": "not on the TPU machine fwbench could borrow, which has no package "
        "registry",
    }
    for what, text in once_shown.items():
        assert {**WORKSHOP, **DESIGN}[what].search(text), what
