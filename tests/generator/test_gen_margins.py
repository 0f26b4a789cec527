"""No winner without a margin: a leader is named (bold, "fastest", favoured, its gap a ratio with its interval) only
where its runs, paired round by round, put it beyond the 5 % minimum effect in a sitting (``fwbench.decision``),
saying "in one sitting" where that is all it rests on; a pay-off is stated and a platform issue sized only from
n ≥ 3 clean runs per configuration with 95 % intervals apart — on a site of both kinds only where decided, nowhere
from their single runs, and from records that carry the margin everywhere."""

from __future__ import annotations

import re
from pathlib import Path

import gen_records
import probe_records
import pytest
from one_page import page_alone

from fwbench.gap import MIN_EFFECT
from fwbench.records import write_record
from fwbench.stats import describe, ratio_interval
from generator.i18n import LANGUAGES, language, translate
from generator.records.aggregate import summarise, tables
from generator.records.codesize import measure
from generator.records.load import Results, load_results
from generator.verdicts.choices import about_even
from generator.verdicts.leads import lead_text, throughput_leads
from generator.verdicts.payoff import payoff
from generator.views.sitedata import REPO_ROOT
from generator.views.verdict_text import text

YNN_OFF = {"XLA_FLAGS": "--xla_cpu_experimental_ynn_fusion_type="}
#: what only a decided lead, pay-off or size may say, as message ids (each checked in every language; a plural
#: message by both its ids, the singular one being the key of its translation)
DECIDED_ONLY = (
    "fastest",
    "quickest to compile",
    "leanest",
    "{leader} ahead, {gaps}",
    "{leader} ahead in one sitting, {gaps}",
    "{leader} ahead, {gap}, {sittings}",
    "{leader}, in one sitting",
    "**{leader}** is {best} at {figure}, ahead of {runner_up} at {other}: {gaps}",
    "**{leader}** is {best} at {figure}, ahead of {runner_up} at {other} in one sitting: {gaps}; {replicate}",
    "pays off after {n} epoch",
    "pays off after {n} epochs",
    "never: eager epochs are faster",
    "{ratio:.1f}× (95 % CI {low:.1f}–{high:.1f}×)",
    "{span} faster with the workaround (95 % CI {low:.1f}–{high:.1f}×; {n} configuration, n ≥ {runs} each)",
    "{span} faster with the workaround (95 % CI {low:.1f}–{high:.1f}×; {n} configurations, n ≥ {runs} each)",
)


def shape(msgid: str) -> re.Pattern:
    """What a message looks like on a page in the language being written: its words, any text in its placeholders."""
    words = re.split(r"\{[^}]*\}", translate(msgid).replace("%%", "%"))
    return re.compile(".+?".join(re.escape(part) for part in words))


def table_rows(page: str, heading: str, end: str) -> list[str]:
    """The Markdown table rows (``| … |``, header and rule left out) between ``heading`` and ``end``."""
    section = page[page.index(heading) : page.index(end)]
    return [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| :")][1:]


def choice_rows(page: str) -> list[str]:
    """The rows of "Which to choose" machine by machine, each scenario with its evidence (in the fold under the
    compact table)."""
    return [line.strip() for line in page.splitlines() if line.startswith("    | [")]


def measured_choices(page: str) -> list[str]:
    """The rows of "Which to choose" read from run records (speed and memory), machine by machine."""
    rows = choice_rows(page)
    return [row for row in rows if "(results/speed.md)" in row or "(results/memory.md)" in row]


#: a second CPU, whose runs are single
SINGLE = "cpu-second-cpu-2t-2b3c4d"


@pytest.fixture(scope="module")
def mixed_results(tmp_path_factory) -> Results:
    """Leads decided from three seeds on one CPU, single runs on another, the platform issue's workaround run three
    times on the first and once on the second, and every probe."""
    root = tmp_path_factory.mktemp("mixed")
    records = [
        *seeded("torch", 10.0, compile_seconds=41.0),
        *seeded("tensorflow", 12.5, compile_seconds=20.0),
        *seeded("jax", 40.0, compile_seconds=3.0),
        *(tuned(record) for record in seeded("jax", 13.0)),
    ]
    records += [gen_records.run(fw, 32, machine_id=SINGLE, seconds=s) for fw, s in (("torch", 10.0), ("jax", 12.0))]
    records.append(tuned(gen_records.run("jax", 32, machine_id=SINGLE, seconds=4.0)))
    for record in records:
        machine = record["hardware"]["machine_id"]
        write_record(root / "runs" / machine / f"{record['record_id']}.json", record)
    return load_results(probe_records.write_machine(root))


@pytest.fixture(scope="module")
def mixed_pages(mixed_results) -> dict[str, dict[str, str]]:
    """The pages that name leaders, built from ``mixed_results``, by language."""
    paths = ("results/verdicts.md", "choose.md", "results/platform-issues.md")
    return {code: {path: page_alone(mixed_results, path, code) for path in paths} for code in LANGUAGES}


def test_the_mixed_records_hold_decided_and_undecided_tables(mixed_results):
    found = tables(summarise(mixed_results.runs))
    leads = [lead for table in found for lead in throughput_leads(table)]
    assert any(lead.decided for lead in leads)
    assert any(not any(lead.decided for lead in throughput_leads(table)) for table in found)  # single runs
    for lead in leads:  # a decided lead stands on sittings whose paired intervals all lie beyond the minimum effect
        if lead.decided:
            assert lead.verdict.rests_on and all(d.lead.low > MIN_EFFECT for d in lead.verdict.rests_on)


def decided(row: str, verdicts: list[re.Pattern]) -> bool:
    """Whether a headline or choices row carries a decided lead: its verdict words say so."""
    return any(verdict.search(row) for verdict in verdicts)


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_no_page_names_a_winner_without_a_margin(mixed_pages, code):
    pages = mixed_pages[code]
    with language(code):
        forbidden = [shape(msgid) for msgid in DECIDED_ONLY]
        findings = translate("Findings")
        no_verdict = translate("no verdict (n = {n})").format(n=1)
        ahead = [shape("{leader} ahead, {gap}, {sittings}")]
        choice_ahead = [
            shape("**{leader}** is {best} at {figure}, ahead of {runner_up} at {other}: {gaps}"),
            shape(
                "**{leader}** is {best} at {figure}, ahead of {runner_up} at {other} in one sitting: {gaps}; "
                "{replicate}"
            ),
        ]
    index, choose = pages["results/verdicts.md"], pages["choose.md"]
    headline_rows = table_rows(index, "\n### ", f"## {findings}")
    choices = measured_choices(choose)
    finding_items = index[index.index(f"## {findings}") :]
    undecided = [row for row in headline_rows if not decided(row, ahead)]
    undecided += [row for row in choices if not decided(row, choice_ahead)]
    assert undecided and len(undecided) < len(headline_rows) + len(choices)  # both kinds on the site
    for row in undecided:
        assert "**" not in row, row
        assert "×" not in row.split("|")[-2], row  # no ratio from single runs either
    # a platform issue's size is decided per machine, so a finding may carry one: only in bold, only as the
    # platform issues page states it, where its pairs stand on n >= 3 each way (checked below)
    sizes = [words for words in forbidden if ".+?" in words.pattern and "95" in words.pattern]
    decided_sizes = [
        m.group(0)
        for words in sizes
        for m in re.finditer("\\*\\*" + words.pattern.replace(".+?", "[^*]+?") + "\\*\\*", finding_items)
    ]
    for size in decided_sizes:
        assert size in pages["results/platform-issues.md"], size
        finding_items = finding_items.replace(size, "")
    for part in (*undecided, finding_items):
        for words in forbidden:
            assert not words.search(part), (words.pattern, part)
    # the platform issue's pairs: a ratio with its interval only where both sides have n >= 3, else no verdict
    pair_rows = [row for row in pages["results/platform-issues.md"].splitlines() if re.match(r"\| \d+ \|", row)]
    assert pair_rows
    for row in pair_rows:
        least = min(int(n) for n in re.findall(r"n=(\d+)", row))
        assert (least >= 3) == (no_verdict.split(" (")[0] not in row), row
        if least < 3:
            assert not any(words.search(row) for words in forbidden), row


def write(root: Path, records: list[dict]) -> Path:
    for record in records:
        write_record(root / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    return root


def seeded(framework: str, seconds: float, seeds: int = 3, spread: float = 0.01, **options) -> list[dict]:
    """``seeds`` runs of one configuration, ``spread`` seconds apart."""
    return [gen_records.run(framework, 32, seed, seconds=seconds + seed * spread, **options) for seed in range(seeds)]


def test_a_margin_from_three_runs_names_the_leader_everywhere(tmp_path):
    records = [
        *seeded("torch", 10.0, compile_seconds=41.0),
        *seeded("torch", 30.0, compile_seconds=1.0, mode="eager"),
        *seeded("tensorflow", 12.5, compile_seconds=20.0),
        *seeded("jax", 40.0, compile_seconds=3.0),
    ]
    results = load_results(write(tmp_path, records))
    index, choose = page_alone(results, "results/verdicts.md"), page_alone(results, "choose.md")
    (row,) = table_rows(index, "\n### ", "**Compile time**")
    assert row.startswith("| 32 | **51.1 ±\u00a00.1**<br><small>fastest · n=3</small> | 40.9 ±\u00a00.1<br><small>n=3")
    # 12.5 s against 10.0 s an epoch, round by round: 1.25 times TensorFlow's throughput, in the one sitting
    assert row.endswith("| PyTorch ahead, 1.25× (1.25–1.25×), in one sitting |")
    assert "pays off after 2 epochs" in index  # 40 s more start-up, 20 s saved per epoch, the epochs apart
    rows = measured_choices(choose)
    assert "| **PyTorch, in one sitting** | **PyTorch** is fastest at 51.1 img/s" in rows[0]
    assert "ahead of TensorFlow at 40.9 img/s ± 0.1 (95 % CI, n=3) in one sitting: 1.25× (1.25–1.25×)" in rows[0]
    compile_row = next(r for r in rows if "short start-up" in r)
    assert "| **JAX, in one sitting** | **JAX** is quickest to compile at 3.0 s" in compile_row
    assert "ahead of TensorFlow at 20.0 s ± 0.0 (95 % CI, n=3) in one sitting: 6.67× (6.67–6.67×)" in compile_row


def test_a_trailing_cell_from_fewer_than_three_runs_shows_its_n_and_no_gap(tmp_path):
    records = [*seeded("torch", 10.0), *seeded("tensorflow", 12.5), *seeded("jax", 40.0, seeds=2)]
    index = page_alone(load_results(write(tmp_path, records)), "results/verdicts.md")
    (row,) = table_rows(index, "\n### ", "**Compile time**")
    torch, tensorflow, jax = row.split(" | ")[1:4]
    assert "fastest · n=3" in torch and tensorflow.endswith("<br><small>n=3</small>")  # the two best judged
    assert jax.endswith("<br><small>n=2</small>") and "%" not in jax  # no cell states a gap of its own
    assert row.endswith("| PyTorch ahead, 1.25× (1.25–1.25×), in one sitting |")


def test_a_lead_within_five_percent_round_by_round_names_no_leader(tmp_path):
    # the seeds' epochs are a second apart, so their intervals overlap widely, but round by round JAX takes 2-3 %
    # longer: within the minimum effect, about equal
    records = [*seeded("torch", 10.0, spread=1.0), *seeded("jax", 10.3, spread=1.0)]
    table = next(iter(tables(summarise(load_results(write(tmp_path, records)).runs))))
    (lead,) = throughput_leads(table)
    assert not lead.decided
    assert text(lead_text(lead)).startswith("about equal (within 5 %) in one sitting: PyTorch at ")
    choose = page_alone(load_results(tmp_path), "choose.md")
    speed = measured_choices(choose)[0]
    assert "| about equal (within 5 %) in one sitting | about equal (within 5 %) in one sitting: " in speed


def test_two_machines_that_report_the_same_cpu_are_told_apart_on_the_choose_page(tmp_path):
    other = "cpu-test-cpu-2t-9f8e7d"  # another VM reporting the same CPU name, its fingerprint different
    records = [*seeded("torch", 10.0), *seeded("jax", 12.0)]
    records += [
        gen_records.run(fw, 32, seed, machine_id=other, seconds=20.0) for fw in ("torch", "jax") for seed in (0, 1)
    ]
    for record in records:
        machine = record["hardware"]["machine_id"]
        write_record(tmp_path / "runs" / machine / f"{record['record_id']}.json", record)
    rows = measured_choices(page_alone(load_results(tmp_path), "choose.md"))
    speed = [row.split("](")[0] for row in rows if "fast training" in row]
    named = (
        "| [fast training at small batches (batch 32) on Test CPU @ 2.0GHz (CPU, 2 threads, AVX2, fingerprint {}), "
        "synthetic"
    )
    assert speed == [named.format("1a2b3c"), named.format("9f8e7d")]


def test_the_choose_page_names_no_winner_from_figures_within_five_percent_or_one_probe_score(mixed_pages):
    rows = {row.split("](")[0]: row for row in choice_rows(mixed_pages["en"]["choose.md"])}
    errors, code = rows["| [clear error messages"], rows["| [the least code to read"]
    # the probes rank TensorFlow first without the silently cast ones and PyTorch with them: no one favoured
    assert "| split |" in errors and "**" not in errors
    assert "(8 probes each, the debugging page's first score): TensorFlow 43%," in errors
    assert "with every probe (10 probes each): PyTorch 38%, TensorFlow 35% and JAX 29%" in errors
    # the counts are of the trainers as they are now (they change with the code): the row states them, and names a
    # winner only where the two smallest are more than 5 % apart
    sources = measure(REPO_ROOT)
    lines = {fw: sum(s.lines for s in sources if s.framework == fw) for fw in ("torch", "tensorflow", "jax")}
    assert f"PyTorch {lines['torch']}, TensorFlow {lines['tensorflow']} and JAX {lines['jax']} lines of code" in code
    assert ("| about even |" in code) is about_even(lines) and ("**" in code) is not about_even(lines)
    assert about_even({"torch": 170, "jax": 176}) and not about_even({"torch": 170, "jax": 180})
    assert not about_even({"torch": 0.71, "jax": 0.61}, lowest=False)
    assert not about_even({"torch": 0.5, "jax": 0.0}, lowest=False) and about_even({"torch": 0.0, "jax": 0.0})


def test_equal_probe_scores_favour_no_one(tmp_path):
    choose = page_alone(load_results(gen_records.write_results(tmp_path)), "choose.md")
    (errors,) = [row for row in choice_rows(choose) if row.startswith("| [clear error messages]")]
    assert "| about even |" in errors and "PyTorch 60%, TensorFlow 60% and JAX 60%" in errors


def test_a_pay_off_needs_the_compiled_and_eager_epochs_apart(tmp_path):
    records = [*seeded("torch", 10.0, spread=2.0), *seeded("torch", 11.0, spread=2.0, mode="eager")]
    (table,) = tables(summarise(load_results(write(tmp_path, records)).runs))
    value = payoff(table, table.columns_in("compiled")[0], 32)
    assert not value.measurable and value.epochs is None
    assert "no measurable pay-off (n = 3)" in page_alone(load_results(tmp_path), "results/verdicts.md")


def tuned(record: dict) -> dict:
    """``record`` as run with the platform issue's workaround."""
    changed = gen_records.with_changes(record, record_id=record["record_id"] + "-ynn-off")
    changed["config"]["tuning_environment"] = YNN_OFF
    return changed


def test_the_platform_issue_is_sized_with_its_interval_only_from_three_runs_each(tmp_path):
    single = [gen_records.run("jax", 32, seconds=12.0), tuned(gen_records.run("jax", 32, seconds=4.0))]
    index = page_alone(load_results(write(tmp_path / "one", single)), "results/verdicts.md")
    assert "Measured here: no verdict (n = 1)." in index
    repeated = [*seeded("jax", 12.0, spread=0.1), *(tuned(r) for r in seeded("jax", 4.0, spread=0.1))]
    results = load_results(write(tmp_path / "three", repeated))
    finding = re.search(r"Measured here: \*\*(.+?)\*\*", page_alone(results, "results/verdicts.md"))
    assert (
        finding
        and finding.group(1) == "3.0× faster with the workaround (95 % CI 2.8–3.1×; 1 configuration, n ≥ 3 each)"
    )
    assert "3.0× (95 % CI 2.8–3.1×)" in page_alone(results, "results/platform-issues.md")


def test_the_platform_issue_is_sized_per_machine_never_pooled(tmp_path):
    other = "cpu-test-cpu-2t-9f8e7d"
    clear = [*seeded("jax", 12.0, spread=0.1), *(tuned(r) for r in seeded("jax", 4.0, spread=0.1))]
    noisy = [
        *seeded("jax", 12.0, spread=3.0, machine_id=other),
        *(tuned(r) for r in seeded("jax", 11.0, spread=3.0, machine_id=other)),
    ]
    write(tmp_path, clear)
    for record in noisy:
        write_record(tmp_path / "runs" / other / f"{record['record_id']}.json", record)
    results = load_results(tmp_path)
    size = (
        f"**3.0× faster with the workaround (95 % CI 2.8–3.1×; 1 configuration, n ≥ 3 each)** on "
        f"`{gen_records.CPU_MACHINE}`; within noise (n = 3) on `{other}`"
    )
    verdicts = page_alone(results, "results/verdicts.md")
    assert f"Measured here: {size}." in verdicts  # the noisy machine hides nothing of the clear one
    assert f"**Measured size.** {size}, from the run records:" in page_alone(results, "results/platform-issues.md")
    chinese = page_alone(results, "results/verdicts.md", "zh")
    assert f"**；`{other}` 上" in chinese and "; `" not in chinese  # each language's own separator


def test_the_ratio_interval_comes_from_the_log_ratio_and_stays_defined_for_small_n():
    a, b = describe([10.0, 10.2, 9.8]), describe([5.0, 5.1, 4.9])
    low, high = ratio_interval(a, b)
    assert low < 10.0 / 5.0 < high and (low, high) == pytest.approx((1.864, 2.146), abs=1e-3)
    noisy = describe([0.1, 3.0, 6.0])  # its own 95 % interval reaches below zero
    assert noisy.ci95[0] < 0
    low, high = ratio_interval(noisy, b)
    assert 0 < low < noisy.mean / b.mean < high
    assert ratio_interval(describe([10.0, 10.2]), b) is None  # no 95 % interval from two runs
