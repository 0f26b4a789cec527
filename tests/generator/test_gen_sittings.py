"""Leads judged by the paired rule (``fwbench.decision``) on the site: a lead resting on one sitting says so wherever
it appears, in both languages; two sittings that agree publish it plainly; sittings that disagree name no leader;
rounds where only one framework ran do not pair. Records are built as ``runners matrix`` writes them
(``runners.measure.record.ok_record``): one run per framework per round, interleaved, a few minutes apart."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import gen_records
from one_page import page_alone

from fwbench.decision import AHEAD, DISAGREE, UNDECIDED
from fwbench.records import write_record
from generator.records.aggregate import summarise, tables
from generator.records.load import load_results
from generator.verdicts.leads import Lead, leads_by_batch
from generator.views.lead_words import pooled_gap
from runners.measure.profiles import RunConfig, expand

QUICK = expand("quick", device="cpu", version_of=gen_records.VERSIONS.get)
#: round by round, each framework's images/s: PyTorch about 1.5× TensorFlow, JAX well behind
AHEAD_RATES = {"torch": [30.0, 31.0, 29.5], "tensorflow": [20.0, 20.6, 19.9], "jax": [10.0, 10.3, 9.8]}
#: the same frameworks with TensorFlow about 1.5× PyTorch
REVERSED_RATES = {"torch": [20.0, 20.6, 19.9], "tensorflow": [30.0, 31.0, 29.5], "jax": [10.0, 10.3, 9.8]}


def at_32(framework: str) -> RunConfig:
    """The quick profile's fp32 configuration of ``framework`` at batch 32."""
    return next(c for c in QUICK if c.batch_size == 32 and c.precision == "fp32" and c.framework == framework)


def sitting(day: int, rates: dict[str, list[float]], first_repeat: int = 0, boot: str | None = None) -> list[dict]:
    """A sitting on 2026-12-``day``, on the boot ``boot`` (default: one of that day's own): round r runs every
    framework of ``rates`` once, two minutes apart, at its r-th rate, as repeat ``first_repeat`` + r."""
    made = []
    for index, (repeat, framework) in enumerate(
        (first_repeat + r, fw) for r in range(len(next(iter(rates.values())))) for fw in rates
    ):
        config = dataclasses.replace(at_32(framework), repeat=repeat)
        finished = f"2026-12-{day:02d}T10:{2 * index + 1:02d}:00.000Z"
        measured = gen_records.one_epoch(config, rates[framework][repeat - first_repeat])
        boot_id = boot or f"boot-of-day-{day}"
        made.append(
            gen_records.as_recorded(config, measured, ["runners", "matrix"], finished_at=finished, boot_id=boot_id)
        )
    return made


def write(root: Path, records: list[dict]) -> Path:
    for record in records:
        write_record(root / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    return root


def lead_of(root: Path) -> Lead:
    """The compiled-mode throughput lead at batch 32 of the only table."""
    (table,) = tables(summarise(load_results(root).runs))
    return leads_by_batch(table)[32]


def answer_of(home: str) -> str:
    return home.split('<div class="fw-answer" markdown>', 1)[1].split("</div>", 1)[0]


def choices(choose: str) -> list[str]:
    """The rows of "Which to choose" read from run records (speed, start-up and memory), machine by machine (in the
    fold under the compact table)."""
    rows = [line.strip() for line in choose.splitlines() if line.startswith("    | [")]
    return [row for row in rows if "(results/speed.md)" in row or "(results/memory.md)" in row]


def speed_choices(choose: str) -> list[str]:
    """The rows of "Which to choose" read from throughput (the first of each table's)."""
    return [row for row in choices(choose) if "fast training" in row or "快速训练" in row]


def built(root: Path) -> dict[str, dict[str, str]]:
    """The home, verdicts and "Which to choose" pages of the records under ``root``, by language."""
    results = load_results(root)
    paths = ("index.md", "results/verdicts.md", "choose.md")
    return {code: {path: page_alone(results, path, code) for path in paths} for code in ("en", "zh")}


def test_one_sittings_lead_says_in_one_sitting_on_the_home_page_and_which_to_choose_in_both_languages(tmp_path):
    lead = lead_of(write(tmp_path, sitting(1, AHEAD_RATES)))
    assert lead.decided and not lead.replicated and lead.outcome == AHEAD
    assert (lead.leader, lead.runner_up, lead.n, len(lead.verdict.sittings)) == ("PyTorch", "TensorFlow", 3, 1)
    (decision,) = lead.verdict.rests_on
    assert 1.4 < decision.lead.low < decision.lead.ratio < decision.lead.high < 1.6
    gap = str(decision.lead)
    pages = built(tmp_path)

    en, zh = pages["en"], pages["zh"]
    answer = answer_of(en["index.md"])
    assert f"PyTorch is ahead of TensorFlow by {gap} at batch 32, in one sitting." in answer
    headline_row = next(line for line in en["results/verdicts.md"].splitlines() if line.startswith("| 32 |"))
    assert headline_row.endswith(f"| PyTorch ahead, {gap}, in one sitting |")
    (choice,) = speed_choices(en["choose.md"])
    assert "| **PyTorch, in one sitting** |" in choice and "ahead of TensorFlow at 20.2 img/s" in choice
    assert f"in one sitting: {gap}; run it again another day to replicate it" in choice
    said = answer + headline_row + "".join(choices(en["choose.md"]))
    assert not re.search(r"\d % ahead", said)  # a gap is a ratio with its interval, never a bare percentage

    zh_answer = answer_of(zh["index.md"])
    assert f"PyTorch 领先于 TensorFlow：批大小 32 时为 {gap}，仅一个测量时段。" in zh_answer
    (zh_choice,) = speed_choices(zh["choose.md"])
    assert "| **PyTorch（仅一个测量时段）** |" in zh_choice
    # every verdict of the two pages (a lead, or "about equal" for start-up and memory) rests on one sitting
    for page, one_sitting in ((en, "in one sitting"), (zh, "仅一个测量时段")):
        rows = choices(page["choose.md"])
        assert len(rows) == 3 and all(one_sitting in row.split(" | ")[1] for row in rows), rows
        cpus = answer_of(page["index.md"]).strip().split("\n\n")[0]  # the CPUs' paragraph: its one lead
        assert one_sitting in cpus, cpus


def test_two_sittings_that_agree_publish_the_lead_plainly_with_each_sittings_ratio(tmp_path):
    records = sitting(1, AHEAD_RATES) + sitting(3, AHEAD_RATES, first_repeat=3)
    lead = lead_of(write(tmp_path, records))
    assert lead.decided and lead.replicated and len(lead.verdict.rests_on) == 2
    first, second = (str(d.lead) for d in lead.verdict.rests_on)
    pooled = pooled_gap(lead)
    assert pooled.low == min(d.lead.low for d in lead.verdict.rests_on)
    assert pooled.high == max(d.lead.high for d in lead.verdict.rests_on)
    pages = built(tmp_path)
    answer = answer_of(pages["en"]["index.md"])
    assert f"PyTorch is ahead of TensorFlow by {pooled} at batch 32, replicated in 2 of 2 sittings." in answer
    assert "in one sitting" not in answer and "run it again another day" not in answer
    row = next(line for line in pages["en"]["results/verdicts.md"].splitlines() if line.startswith("| 32 |"))
    # one statement, then each sitting's ratio in a fold
    assert f"| PyTorch ahead, {pooled}, replicated in 2 of 2 sittings<details><summary>2 sittings</summary>" in row
    assert f"sitting 1: {first}, n = 3<br>sitting 2: {second}, n = 3</details> |" in row
    (choice,) = speed_choices(pages["en"]["choose.md"])
    assert "| **PyTorch** | **PyTorch** is fastest at " in choice and "in one sitting" not in choice
    assert f"PyTorch 领先于 TensorFlow：批大小 32 时为 {pooled}" in answer_of(pages["zh"]["index.md"])


def test_a_new_boot_starts_a_new_sitting_within_the_hour(tmp_path):
    first, second = sitting(1, AHEAD_RATES), sitting(1, AHEAD_RATES, first_repeat=3)
    for record in second:  # the same morning, minutes later, after a reboot
        record["started_at"] = record["started_at"].replace("T10:", "T11:")
        record["finished_at"] = record["finished_at"].replace("T10:", "T11:")
    for records, boot in ((first, "boot-a"), (second, "boot-b")):
        for record in records:
            record["hardware"]["boot_id"] = boot
    lead = lead_of(write(tmp_path, first + second))
    assert lead.replicated and len(lead.verdict.sittings) == 2


def test_sittings_that_disagree_name_no_leader(tmp_path):
    records = sitting(1, AHEAD_RATES) + sitting(3, REVERSED_RATES, first_repeat=3)
    lead = lead_of(write(tmp_path, records))
    assert lead.outcome == DISAGREE and not lead.decided and lead.verdict.leader is None
    assert {d.leader for d in lead.verdict.rests_on} == {0, 1}  # each sitting decided, the other way round
    pages = built(tmp_path)
    answer = answer_of(pages["en"]["index.md"])
    assert "No framework is ahead yet: 1 where the sittings disagree on PyTorch and TensorFlow." in answer
    assert "is ahead of" not in answer
    (choice,) = speed_choices(pages["en"]["choose.md"])
    assert "| sittings disagree | sittings disagree: " in choice and "**" not in choice
    assert "测量时段对 PyTorch 与 TensorFlow 的结论不一" in answer_of(pages["zh"]["index.md"])


def test_rounds_where_only_one_framework_ran_do_not_pair(tmp_path):
    side_by_side = sitting(1, {"torch": AHEAD_RATES["torch"], "tensorflow": AHEAD_RATES["tensorflow"]})
    alone = sitting(3, {"jax": [60.0, 61.0, 59.0]}, first_repeat=3)  # the fastest figure, nothing ran beside it
    lead = lead_of(write(tmp_path, side_by_side + alone))
    assert (lead.leader, lead.runner_up, lead.outcome, lead.n) == ("JAX", "PyTorch", UNDECIDED, 0)
    answer = answer_of(built(tmp_path)["en"]["index.md"])
    assert "No framework is ahead yet: 1 undecided between JAX and PyTorch (n = 0)." in answer
    assert not re.search(r"\*\*JAX", answer)
