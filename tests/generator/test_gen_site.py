"""End to end: `generator build` turns fixture records into a strict MkDocs site with the expected content."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from pathlib import Path

import gen_records
import pytest
from one_page import page_alone

from generator import cli
from generator.cli import main

pytestmark = pytest.mark.slow


def page(site, path):
    return (site / path).read_text(encoding="utf-8")


def test_every_page_is_built(built_site):
    for path in (
        "index.html",
        "method.html",
        "results/speed.html",
        "results/memory.html",
        "results/accuracy.html",
        "results/platform-issues.html",
        "devex/debugging.html",
        "devex/code-size.html",
        "devex/toolchains.html",
        "choose.html",
        "beyond/community.html",
        "beyond/documentation.html",
        "beyond/maintenance.html",
        "appendix/claims.html",
        "appendix/raw-data.html",
        "appendix/reproduce.html",
        "design.html",
    ):
        assert (built_site / path).is_file(), path


def test_speed_table_shows_means_spread_runs_and_the_failed_run(built_site):
    html = page(built_site, "results/speed.html")
    assert "<table>" in html
    assert "10.10 ±\u00a00.25\u00a0s<br><small>n=3</small>" in html
    assert "✗ 1 OOM" in html
    assert "1.98×<br><small>32 → 64, n=3, 3</small>" in html
    assert "Synthetic data" in html
    assert (built_site / "charts").is_dir() and any((built_site / "charts").glob("speed-*.png"))


def test_probe_messages_are_escaped_and_stripped_of_colour_codes(built_site):
    html = page(built_site, "devex/debugging.html")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&amp;" in html
    assert "\x1b[" not in html and "[31m" not in html
    assert "No error was raised" in html  # the NaN probe that went unreported


def test_skipped_record_notice(built_site):
    for path in ("index.html", "appendix/raw-data.html"):
        html = page(built_site, path)
        assert "1 record skipped" in html
        assert f"runs/{gen_records.CPU_MACHINE}/invalid_run.json" in html
        assert "timing.epoch_seconds" in html


def test_claims_accuracy_and_downloads(built_site):
    claims = page(built_site, "appendix/claims.html")
    assert "3.92×" in claims and "contradicted" in claims and "not comparable" in claims
    accuracy = page(built_site, "results/accuracy.html")
    assert "41.00 ±\u00a02.48\u00a0%<br><small>n=3 · sd 1.00</small>" in accuracy
    assert "Time to accuracy is not shown for synthetic data" in accuracy and "evaluation time" in accuracy.lower()
    csv_text = (built_site / "data" / "configurations.csv").read_text()
    assert csv_text.splitlines()[0].startswith("machine_id,workload,profile,dataset,train_images")
    configurations = list(csv.DictReader(io.StringIO(csv_text)))
    assert {row["epoch_seconds_n"] for row in configurations if row["ok"] == "3"} == {"3"}
    assert "seconds_to_90pct_ci95_high" in configurations[0]
    claim_rows = list(csv.DictReader(io.StringIO((built_site / "data" / "claims.csv").read_text())))
    assert all(row["conditions"] for row in claim_rows)
    with zipfile.ZipFile(built_site / "data" / "records-runs.zip") as archive:
        name = f"runs/{gen_records.CPU_MACHINE}/torch-compiled-synthetic-bs128-seed0-{gen_records.CPU_MACHINE}-oom.json"
        record = json.loads(archive.read(name))
    assert record["status"] == "oom"


def test_code_size_tabs_and_empty_states(built_site):
    html = page(built_site, "devex/code-size.html")
    assert "tabbed-set" in html
    assert "the framework" in html and "ones" in html  # the file itself, comment included, in its tab
    assert "torch/resnet18.py" in html and "not written yet" in html  # where it lies under runners/frameworks/
    assert "PyTorch (2 lines)" in html


def test_ecosystem_pages_and_history_charts(built_site):
    community = page(built_site, "beyond/community.html")
    assert "25,000" in community and "sample 200" in community
    documentation = re.sub(r"<[^>]+>", "", page(built_site, "beyond/documentation.html"))
    assert "What fwbench measures" in documentation and "Nothing." in documentation
    maintenance = page(built_site, "beyond/maintenance.html")
    assert "failed: rate limited" in maintenance
    assert (built_site / "charts" / "history-github-stars.png").is_file()


def test_empty_results_build_with_empty_states(tmp_path):
    (tmp_path / "none").mkdir()
    assert main(["build", "--results", str(tmp_path / "none"), "--site-dir", str(tmp_path / "site")]) == 0
    html = (tmp_path / "site" / "results" / "speed.html").read_text()
    assert "runners matrix --profile quick --out results/runs" in html
    assert "runners probes" in (tmp_path / "site" / "devex" / "debugging.html").read_text()
    community = (tmp_path / "site" / "beyond" / "community.html").read_text()
    assert "<strong>unverified</strong>" in community and "questions_in_window" not in community  # no field names
    assert "questions asked with the tag within the window" in community and "142,000+" in community


def test_strict_fails_on_the_invalid_record(results_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli, "cjk_font", lambda: "Noto Sans CJK SC")  # whatever fonts this machine has
    assert main(["build", "--strict", "--results", str(results_dir), "--site-dir", str(tmp_path / "site")]) == 1
    err = capsys.readouterr().err
    assert "invalid_run.json" in err and "timing.epoch_seconds" in err
    assert not (tmp_path / "site").exists()


def test_strict_fails_before_any_work_where_no_font_draws_chinese(results_dir, tmp_path, capsys, monkeypatch):
    # the published site's Chinese charts would otherwise keep English labels without a word in the Pages log
    monkeypatch.setattr(cli, "cjk_font", lambda: None)
    assert main(["build", "--strict", "--results", str(results_dir), "--site-dir", str(tmp_path / "site")]) == 1
    err = capsys.readouterr().err
    assert "no font that draws Chinese" in err and "fonts-noto-cjk" in err and "invalid_run.json" not in err
    assert not (tmp_path / "site").exists()


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["build", "--no-such-flag"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2


@pytest.mark.parametrize("inside", ["", "sub"])
def test_a_site_dir_that_is_a_file_is_a_usage_error(results_dir, tmp_path, capsys, inside):
    readme = tmp_path / "README.md"
    readme.write_text("not a site\n")
    site_dir = readme / inside if inside else readme
    before = sorted(tmp_path.rglob("*"))
    assert main(["build", "--results", str(results_dir), "--site-dir", str(site_dir)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "--site-dir" in err[0] and str(site_dir) in err[0] and "not a directory" in err[0]
    assert sorted(tmp_path.rglob("*")) == before and readme.read_text() == "not a site\n"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_site_dir_where_no_folder_can_be_made_is_a_usage_error_for_root_too(results_dir, capsys):
    """os.access says root may write in /proc; making the site there failed only inside mkdocs, with a traceback."""
    assert main(["build", "--results", str(results_dir), "--site-dir", "/proc/fwbench-site"]) == 2
    (err,) = capsys.readouterr().err.splitlines()
    assert err.startswith("generator build: error: --site-dir /proc/fwbench-site: not writable (/proc)")


def test_tuned_runs_get_their_own_labelled_escaped_table_and_stay_out_of_the_headline(tmp_path):
    from fwbench.records import write_record

    runs = tmp_path / "results" / "runs" / gen_records.CPU_MACHINE
    tuned = gen_records.with_changes(gen_records.run("jax", 32, seconds=9.0), record_id="jax-tuned")
    tuned["config"]["tuning_environment"] = {"XLA_FLAGS": "--xla_cpu_experimental_ynn_fusion_type=<b>"}
    for record in (gen_records.run("torch", 32, seconds=10.0), gen_records.run("jax", 32, seconds=20.0), tuned):
        write_record(runs / f"{record['record_id']}.json", record)
    assert main(["build", "--results", str(tmp_path / "results"), "--site-dir", str(tmp_path / "site")]) == 0
    speed = page(tmp_path / "site", "results/speed.html")
    assert "tuned: XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=&lt;b&gt;" in speed
    assert "20.00\u00a0s" in speed and "9.00\u00a0s" in speed  # two tables: the tuned run is never averaged in
    index = page(tmp_path / "site", "results/verdicts.html")
    assert "<b>" not in speed and "<b>" not in index
    assert "51.2<br><small>n=1</small>" in index and "25.6<br><small>n=1</small>" in index  # 10 s, 20 s for 512
    assert "undecided at n = 1" in index and "fastest · " not in index  # no leader from one run each
    assert "56.9" not in index  # the tuned JAX run (9 s: 56.9 img/s) is not a verdict
    assert "The verdicts compare out-of-the-box runs only" in index
    for name in ("configurations", "runs"):  # the downloads tell the tuned rows apart too
        rows = list(csv.DictReader(io.StringIO(page(tmp_path / "site", f"data/{name}.csv"))))
        assert sorted(row["tuning"] for row in rows if row["framework"] == "jax") == [
            "",
            "XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=<b>",
        ]
    reproduce = re.sub(r"<[^>]+>", "", page(tmp_path / "site", "appendix/reproduce.html"))  # no highlighting
    assert "XLA_FLAGS='--xla_cpu_experimental_ynn_fusion_type=&lt;b&gt;' runners run --framework jax" in reproduce


def test_claims_page_shows_the_rules_table_and_the_conditions_checked(built_site):
    text = re.sub(r"<[^>]+>", "", page(built_site, "appendix/claims.html"))
    assert "When a measurement is comparable" in text
    for condition in (
        "the article's device class, a GPU",
        "50,000 training images requested",
        "batch sizes 32, 64, 128 and 256",
        "at least 3 successful clean runs",
        "no busy-flagged runs",
        "framework versions (the article used PyTorch 2.2.1",
        "each framework's default precision, as the article ran them out of the box",
        "memory preallocation off",
        "data resident on the device",
    ):
        assert condition in text, condition
    assert "within noise" in text
    conditions = "GPU; default precision; CIFAR-10; article protocol; learning-rate schedule; n ≥ 3; no busy or older"
    assert conditions in text  # the conditions checked


def test_memory_page_says_what_a_cpu_counts(built_site):
    text = re.sub(r"<[^>]+>", "", page(built_site, "results/memory.html"))
    assert "What is counted on a CPU" in text and "whole process tree" in text and "g++" in text
    assert "Host peak RSS counts: the run&#x27;s process tree" in text or "Host peak RSS counts: the run's" in text


def test_busy_and_older_runs_are_marked_and_left_out_of_the_headline(tmp_path):
    from fwbench.records import write_record

    runs = tmp_path / "results" / "runs" / gen_records.CPU_MACHINE
    for record in (
        gen_records.run("torch", 32, seconds=10.0, busy=True),
        gen_records.run("jax", 32, seconds=20.0),
        gen_records.run("tensorflow", 32, seconds=15.0),
        gen_records.run("jax", 32, seconds=5.0, older=True),
        gen_records.run("torch", 32, seconds=4.0, older=True),
    ):
        write_record(runs / f"{record['record_id']}.json", record)
    assert main(["build", "--results", str(tmp_path / "results"), "--site-dir", str(tmp_path / "site")]) == 0
    index = page(tmp_path / "site", "results/verdicts.html")
    assert "undecided at n = 1" in index  # between TensorFlow and JAX: the busy PyTorch run is never judged
    assert "not judged: older records" in index
    assert "1 busy-flagged run" in index and "2 older records" in index
    speed = page(tmp_path / "site", "results/speed.html")
    assert '10.00\u00a0s<br><small>n=1 · <span title="busy-flagged run">⚑</span>' in speed
    assert '5.00\u00a0s<br><small>n=1 · <span title="older record">◌</span>' in speed
    assert "config.train_images" not in speed  # no raw field path on a product page


#: the busy rule as the pages state it (the ``busy_rule`` macro, the comparability rule's condition)
BUSY_RULE = (
    "more than 4 % of one core's worth of the machine's CPUs at the run's start or on average across its timed "
    "epochs, or at its end where those were too short to sample"
)


def test_every_page_states_the_busy_rule_the_runner_applies(tmp_path):
    from fwbench.records import write_record
    from generator.records.load import load_results
    from runners.measure.machine_load import busy_threshold, load_section

    quiet, over = ({"other_cpu_percent": p, "cpu_count": 2} for p in (1.0, busy_threshold(2) + 1))
    clock = {"mean_other_cpu_percent": 1.0}
    assert (
        load_section(over, quiet, 0.0, clock)["busy"]
        and load_section(quiet, quiet, 0.0, {"mean_other_cpu_percent": 20.0})["busy"]
    )
    assert not load_section(quiet, over, 0.0, clock)["busy"]  # the end judges only a clock without a sample
    assert load_section(quiet, over, 0.0, None)["busy"]
    record = gen_records.run("torch", 32, busy=True)
    write_record(tmp_path / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    results = load_results(tmp_path)
    pages = {path: page_alone(results, path) for path in ("results/verdicts.md", "method.md", "appendix/claims.md")}
    for path in pages:
        assert BUSY_RULE in " ".join(pages[path].split()), path
    assert "start or end" not in pages["results/verdicts.md"] and "at its end and every half" not in pages["method.md"]


def test_the_method_page_says_repeats_compile_warm_from_the_first_run_s_caches(tmp_path):
    from generator.records.load import load_results

    method = " ".join(page_alone(load_results(tmp_path), "method.md").split())
    assert "A configuration's first run compiles cold, its compiler caches emptied; its repeats compile warm" in method
    assert "JAX's persistent compilation cache and XLA's persistent cache in TensorFlow" in method
    assert "keep none by default" not in method


def test_time_to_accuracy_is_on_the_accuracy_page_for_cifar10(tmp_path):
    from fwbench.records import write_record
    from generator.records.load import load_results

    runs = tmp_path / "runs" / gen_records.GPU_MACHINE
    for seed in range(3):
        record = gen_records.run(
            "torch",
            128,
            seed,
            machine_id=gen_records.GPU_MACHINE,
            dataset="cifar10",
            epochs=3,
            seconds=10.0 + seed,
            compile_seconds=5.0,
            epoch_accuracies=[0.60, 0.86, 0.88],
        )
        write_record(runs / f"{record['record_id']}.json", record)
    accuracy = page_alone(load_results(tmp_path), "results/accuracy.md")
    assert "**Time to 85 % test accuracy**" in accuracy
    # 5 s compile + two epochs of 10, 11, 12 s
    assert "| 128 | 27.0 ±\u00a05.0\u00a0s<br><small>n=3</small> |" in accuracy
    assert "not reached in 3 epochs<br><small>n=3</small>" in accuracy  # the 90 % target
    assert "Time to accuracy is not shown" not in accuracy
