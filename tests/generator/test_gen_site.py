"""End to end: `generator build` turns fixture records into a strict MkDocs site with the expected content."""

from __future__ import annotations

import csv
import io
import json
import re

import gen_records
import pytest

from generator.cli import main

pytestmark = pytest.mark.slow


def page(site, path):
    return (site / path).read_text(encoding="utf-8")


def test_every_page_is_built(built_site):
    for path in (
        "index.html",
        "method/index.html",
        "results/speed/index.html",
        "results/memory/index.html",
        "results/accuracy/index.html",
        "devex/debugging/index.html",
        "devex/code-size/index.html",
        "devex/toolchains/index.html",
        "choose/index.html",
        "beyond/community/index.html",
        "beyond/maintenance/index.html",
        "appendix/claims/index.html",
        "appendix/raw-data/index.html",
        "appendix/reproduce/index.html",
    ):
        assert (built_site / path).is_file(), path


def test_speed_table_shows_medians_runs_and_the_failed_run(built_site):
    html = page(built_site, "results/speed/index.html")
    assert "<table>" in html
    assert "10.10 s (n=3)" in html
    assert "✗ 1 OOM" in html
    assert "2.00× (32 → 64)" in html or "1.98× (32 → 64)" in html
    assert "Synthetic data" in html
    assert (built_site / "charts").is_dir() and any((built_site / "charts").glob("speed-*.png"))


def test_probe_messages_are_escaped_and_stripped_of_colour_codes(built_site):
    html = page(built_site, "devex/debugging/index.html")
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&amp;" in html
    assert "\x1b[" not in html and "[31m" not in html
    assert "No error was raised" in html  # the NaN probe that went unreported


def test_skipped_record_notice(built_site):
    for path in ("index.html", "appendix/raw-data/index.html"):
        html = page(built_site, path)
        assert "1 record skipped" in html
        assert f"runs/{gen_records.CPU_MACHINE}/invalid_run.json" in html
        assert "timing.epoch_seconds" in html


def test_claims_accuracy_and_downloads(built_site):
    claims = page(built_site, "appendix/claims/index.html")
    assert "3.92×" in claims and "contradicted" in claims and "not comparable" in claims
    accuracy = page(built_site, "results/accuracy/index.html")
    assert "41.00 ± 1.00 %" in accuracy and "95% CI" in accuracy
    csv_text = (built_site / "data" / "configurations.csv").read_text()
    assert csv_text.splitlines()[0].startswith("machine_id,profile,dataset")
    record = json.loads(
        (
            built_site
            / "data"
            / "records"
            / "runs"
            / gen_records.CPU_MACHINE
            / "torch-compiled-synthetic-bs128-seed0-cpu-test-cpu-2t-oom.json"
        ).read_text()
    )
    assert record["status"] == "oom"


def test_code_size_tabs_and_empty_states(built_site):
    html = page(built_site, "devex/code-size/index.html")
    assert "tabbed-set" in html
    assert "the framework" in html and "ones" in html  # the file itself, comment included, in its tab
    assert "torch_train.py" in html and "not written yet" in html
    assert "PyTorch (2 lines)" in html


def test_ecosystem_pages_and_history_charts(built_site):
    community = page(built_site, "beyond/community/index.html")
    assert "25,000" in community and "sample 200" in community
    maintenance = page(built_site, "beyond/maintenance/index.html")
    assert "failed: rate limited" in maintenance
    assert (built_site / "charts" / "history-github-stars.png").is_file()


def test_empty_results_build_with_empty_states(tmp_path):
    assert main(["build", "--results", str(tmp_path / "none"), "--site-dir", str(tmp_path / "site")]) == 0
    html = (tmp_path / "site" / "results" / "speed" / "index.html").read_text()
    assert "runners matrix --profile quick --out results/runs" in html
    assert "runners probes" in (tmp_path / "site" / "devex" / "debugging" / "index.html").read_text()


def test_strict_fails_on_the_invalid_record(results_dir, tmp_path, capsys):
    assert (
        main(["build", "--strict", "--results", str(results_dir), "--site-dir", str(tmp_path / "site")]) == 1
    )
    err = capsys.readouterr().err
    assert "invalid_run.json" in err and "timing.epoch_seconds" in err
    assert not (tmp_path / "site").exists()


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["build", "--no-such-flag"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2


def test_tuned_runs_get_their_own_labelled_escaped_table_and_stay_out_of_the_headline(tmp_path):
    from fwbench.records import write_record

    runs = tmp_path / "results" / "runs" / gen_records.CPU_MACHINE
    tuned = gen_records.with_changes(gen_records.run("jax", 32, seconds=9.0), record_id="jax-tuned")
    tuned["config"]["tuning_environment"] = {"XLA_FLAGS": "--xla_cpu_experimental_ynn_fusion_type=<b>"}
    for record in (gen_records.run("torch", 32, seconds=10.0), gen_records.run("jax", 32, seconds=20.0), tuned):
        write_record(runs / f"{record['record_id']}.json", record)
    assert main(["build", "--results", str(tmp_path / "results"), "--site-dir", str(tmp_path / "site")]) == 0
    speed = page(tmp_path / "site", "results/speed/index.html")
    assert "tuned: XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=&lt;b&gt;" in speed
    assert "20.00 s" in speed and "9.00 s" in speed  # two tables: the tuned run is never averaged in
    index = page(tmp_path / "site", "index.html")
    assert "<b>" not in speed and "<b>" not in index
    assert "<strong>PyTorch</strong> is fastest" in index  # 10 s beats the out-of-the-box 20 s
    assert "<strong>JAX</strong> is fastest" not in index  # the tuned 9 s is not a headline
    assert "The headline compares out-of-the-box runs only" in index
    for name in ("configurations", "runs"):  # the downloads tell the tuned rows apart too
        rows = list(csv.DictReader(io.StringIO(page(tmp_path / "site", f"data/{name}.csv"))))
        assert sorted(row["tuning"] for row in rows if row["framework"] == "jax") == [
            "", "XLA_FLAGS=--xla_cpu_experimental_ynn_fusion_type=<b>"]
    reproduce = re.sub(r"<[^>]+>", "", page(tmp_path / "site", "appendix/reproduce/index.html"))  # no highlighting
    assert "XLA_FLAGS='--xla_cpu_experimental_ynn_fusion_type=&lt;b&gt;' runners run --framework jax" in reproduce
