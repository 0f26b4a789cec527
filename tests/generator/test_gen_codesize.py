"""Code-size counting: comments, docstrings and blank lines do not count."""

from __future__ import annotations

from generator.records.codesize import count_code_lines, measure

SOURCE = '''"""Module docstring
over two lines."""

import os  # a trailing comment still leaves code

# a comment line


class Net:
    """Class docstring."""

    def forward(self, x):
        text = """a multi-line
        string that is code"""
        return x
'''


def test_counts_only_code_lines():
    # import, class, def, the two lines of the assigned string, return
    assert count_code_lines(SOURCE) == 6


def test_measure_finds_files_by_framework_key_and_marks_missing_ones(tmp_path):
    (tmp_path / "jax_model.py").write_text("x = 1\n")
    (tmp_path / "tensorflow_train.py").write_text("x = 1\ny = 2\n")
    found = {(s.part, s.framework): s for s in measure(tmp_path)}
    assert found[("model", "jax")].lines == 1
    assert found[("training step", "tensorflow")].lines == 2  # <key>_train.py, whatever the key
    assert found[("model", "torch")].lines is None and found[("model", "torch")].text is None
    assert len(found) == 6
