"""Code-size counting: comments, docstrings and blank lines do not count."""

from __future__ import annotations

from fwbench.frameworks import REGISTRY
from generator.records.codesize import count_code_lines, measure, module_path, sources_folder

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
    model = tmp_path / "runners" / "frameworks" / "jax" / "resnet18_model.py"  # in the framework's folder
    trainer = tmp_path / "runners" / "frameworks" / "tensorflow" / "resnet18.py"
    for path, text in ((model, "x = 1\n"), (trainer, "x = 1\ny = 2\n")):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    found = {(s.part, s.framework): s for s in measure(tmp_path)}
    assert found[("model", "jax")].lines == 1
    assert found[("training step", "tensorflow")].lines == 2  # <key>/resnet18.py, whatever the key
    assert found[("model", "torch")].lines is None and found[("model", "torch")].text is None
    assert len(found) == 6
    assert sources_folder(tmp_path) == tmp_path / "runners" / "frameworks"  # the one folder the page names


def test_module_path_is_the_module_s_file_under_the_root(tmp_path):
    assert module_path(tmp_path, REGISTRY["torchax"].model_module) == (
        tmp_path / "runners" / "frameworks" / "torch" / "resnet18_model.py"
    )
