"""Progress bars only on a terminal: in a log, plain lines and no carriage-return floods (matrix: test_matrix.py;
record loading: test_gen_load.py)."""

from __future__ import annotations

import hashlib
import io
import sys

import pytest

from fwbench.progress import on_terminal, progress_bar
from runners.probes import catalog
from runners.probes import cli as probes_cli
from runners.workloads.resnet18 import cifar_archive


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_is_drawn_on_a_terminal_only(monkeypatch):
    assert not on_terminal(io.StringIO()) and on_terminal(Terminal())
    closed = io.StringIO()
    closed.close()
    assert not on_terminal(closed)
    for stream, drawn in ((io.StringIO(), False), (Terminal(), True)):
        monkeypatch.setattr(sys, "stderr", stream)
        assert sum(progress_bar(range(50), desc="work")) == sum(range(50))  # a hidden bar still iterates
        assert ("\r" in stream.getvalue()) is drawn
        monkeypatch.setattr(sys, "stderr", io.StringIO())
        assert sum(progress_bar(range(3), enabled=False)) == 3


@pytest.fixture
def small_archive(tmp_path):
    source = tmp_path / "source.tar.gz"
    source.write_bytes(bytes(range(256)) * 40_000)  # 10 MB: a bar would redraw many times
    return source, source.stat().st_size, hashlib.md5(source.read_bytes()).hexdigest()


@pytest.mark.parametrize("stream, drawn", [(io.StringIO, False), (Terminal, True)])
def test_the_download_bar_is_drawn_on_a_terminal_only(monkeypatch, tmp_path, small_archive, stream, drawn):
    source, size, md5 = small_archive
    monkeypatch.setattr(sys, "stderr", stream())
    dest = cifar_archive.download(source.as_uri(), tmp_path / "data" / "archive.tar.gz", size, md5, progress=True)
    assert dest.read_bytes() == source.read_bytes()
    assert ("\r" in sys.stderr.getvalue()) is drawn


def test_probes_print_one_plain_line_each_off_a_terminal(monkeypatch, tmp_path, capsys):
    specs = catalog.all_specs(frameworks=("torch",), bugs=("dense_shape",))
    written = []
    monkeypatch.setattr(probes_cli.ProbeProcesses, "run", lambda self, spec, python=None: {"outcome": "error"})
    monkeypatch.setattr(probes_cli, "build_record", lambda spec, capture, **_: {"outcome": capture["outcome"]})
    monkeypatch.setattr(probes_cli, "write_record", lambda path, record: written.append(path))
    probes_cli.run_probes(specs, tmp_path, progress=True)
    err = capsys.readouterr().err
    assert "\r" not in err and len(written) == len(specs) >= 2
    assert err.splitlines() == [f"[{k}/{len(specs)}] {spec.label}: error" for k, spec in enumerate(specs, 1)]
