"""The probe catalog: every program marks each bug exactly once, and the probe matrix is complete."""

import subprocess
import sys

import pytest

from runners.probes import catalog


@pytest.mark.parametrize("framework", catalog.FRAMEWORKS)
@pytest.mark.parametrize("bug", catalog.BUGS)
def test_each_program_marks_each_bug_once(framework, bug):
    line = catalog.planted_line(framework, bug)
    text = catalog.program_path(framework).read_text().splitlines()[line - 1]
    assert f"# PLANTED: {bug}" in text


def test_missing_marker_is_an_error_naming_the_file(tmp_path, monkeypatch):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "probes.py").write_text("x = 1\n")
    monkeypatch.setattr(catalog, "FRAMEWORKS_DIR", tmp_path)
    catalog.planted_line.cache_clear()
    try:
        with pytest.raises(ValueError, match="probes.py: expected exactly one '# PLANTED: nan' marker"):
            catalog.planted_line("torch", "nan")
    finally:
        catalog.planted_line.cache_clear()


def test_full_matrix_is_thirty_probes_with_unique_ids():
    specs = catalog.all_specs()
    assert len(specs) == 3 * 2 * (3 + 2)
    assert len({s.record_id for s in specs}) == len(specs)
    assert {s.tooling for s in specs if s.bug != "nan"} == {None}
    assert "nan-jax-compiled-tooling-on" in {s.record_id for s in specs}


def test_the_parent_never_imports_a_framework():
    # only the child process imports torch, tensorflow or jax (docs/design.md: one framework per process)
    code = (
        "import sys, runners.cli, runners.probes.cli; print(sorted({'torch', 'tensorflow', 'jax'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
