"""A fourth framework, added as one folder: the site still builds, in both languages, and shows it.

The folder must be on ``runners.frameworks``' path before the rest of fwbench is imported (modules copy
``FRAMEWORKS`` at import), so the build runs in a fresh interpreter: it finds a stand-in framework's folder
(``mxnet/__init__.py``, its registry entry alone: the site needs nothing else of it), writes the fixture records
(``gen_records``) with runs and a probe of the stand-in among them, and renders every page with
``generator.build.render.build_pages``. The article's checks keep to the article's three frameworks.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

#: the stand-in's folder: its registry entry
ENTRY = textwrap.dedent(
    """
    from fwbench.framework_entry import Framework

    FRAMEWORK = Framework(
        name="mxnet",
        label="MXNet",
        colour="#CC79A7",
        marker="D",
        import_name="mxnet",
        distributions=("mxnet",),
        training_modes=("compiled",),
        probe_modes=("eager", "compiled"),
        layer_class="Dense",
        companions=("numpy",),
        stackoverflow_tags=("mxnet",),
        github_repos=("apache/mxnet",),
        pypi_packages=("mxnet",),
        compile_cache=("mxnet",),
        out_of_memory=("out of memory",),
    )
    """
)
#: argv: the results directory to write, tests/generator, the directory holding the stand-in's folder
SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path

    import runners.frameworks

    runners.frameworks.__path__.append(sys.argv[3])
    sys.path.insert(0, sys.argv[2])  # tests/generator, for gen_records
    import gen_records
    from fwbench.records import write_record
    from generator.build.render import build_pages
    from generator.records.load import load_results

    root = Path(sys.argv[1])
    gen_records.VERSIONS["mxnet"] = "1.9.1"
    gen_records.write_results(root)
    for bs in (32, 64):
        for seed in range(3):
            record = gen_records.run("mxnet", bs, seed, seconds=11.0 * 32 / bs + 0.1 * seed)
            write_record(root / "runs" / gen_records.CPU_MACHINE / f"{record['record_id']}.json", record)
    probe = gen_records.probe("mxnet")
    write_record(root / "probes" / gen_records.CPU_MACHINE / f"{probe['record_id']}.json", probe)
    results = load_results(root)
    shared = {}
    pages = {}
    for language in ("en", "zh"):
        files = build_pages(results, language=language, shared=shared)
        pages[language] = {path: text for path, text in files.items() if path.endswith(".md")}
    print(json.dumps({"skipped": [s.message for s in results.skipped], "pages": pages}))
    """
)


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("fourth") / "results"
    plugins = tmp_path_factory.mktemp("plugins")
    (plugins / "mxnet").mkdir()
    (plugins / "mxnet" / "__init__.py").write_text(ENTRY)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(root), str(Path(__file__).parent), str(plugins)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout)


def test_every_page_builds_in_both_languages(pages):
    assert set(pages["pages"]["en"]) == set(pages["pages"]["zh"]) - {"design.md"}
    assert [s for s in pages["skipped"] if "mxnet" in s] == []  # the stand-in's records validate


def test_the_fourth_framework_is_measured_but_not_checked_against_the_article(pages):
    en = pages["pages"]["en"]
    assert "MXNet" in en["results/speed.md"] and "MXNet" in en["index.md"]
    assert "MXNet" in en["devex/debugging.md"]
    assert "MXNet" not in en["appendix/claims.md"]
