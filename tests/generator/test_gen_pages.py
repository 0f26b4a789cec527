"""The site's structure: one module per page, found; the navigation built from them; every template uses all of
its context; no module of the generator longer than it should be."""

from __future__ import annotations

import re
from pathlib import Path

from jinja2 import meta, nodes

from generator.build.render import environment
from generator.data_text import DATA_DIR, load_data
from generator.records.load import load_results
from generator.site import STATIC_PAGES, nav, page_modules
from generator.views.sitedata import REPO_ROOT, SiteData

GENERATOR = Path(__file__).resolve().parents[2] / "generator"
MAX_MODULE_LINES = 350


def test_every_page_module_is_found_once_with_its_template():
    modules = page_modules()
    paths = [m.PAGE.path for m in modules]
    assert len(paths) == len(set(paths)) >= 16
    assert paths[0] == "index.md"
    for module in modules:
        assert (GENERATOR / "templates" / module.PAGE.template).is_file(), module.__name__
        assert callable(module.context), module.__name__


def test_the_navigation_lists_every_page_in_order_grouped_by_section():
    entries = nav()
    assert entries[0] == {"1 Who is faster": "index.md"}
    listed = []
    for entry in entries:
        ((title, value),) = entry.items()
        listed += [path for item in value for path in item.values()] if isinstance(value, list) else [value]
    assert sorted(listed) == sorted([m.PAGE.path for m in page_modules()] + [p.path for p in STATIC_PAGES])
    sections = [next(iter(e)) for e in entries if isinstance(next(iter(e.values())), list)]
    assert sections == ["3 Results", "4 Developer experience", "6 Beyond performance", "Appendix"]
    assert {"6.2 Documentation": "beyond/documentation.md"} in entries[5]["6 Beyond performance"]


def test_no_template_receives_a_context_it_does_not_use(results_dir):
    site = SiteData(load_results(results_dir), REPO_ROOT)
    env = environment()
    for module in page_modules():
        parsed = env.parse(env.loader.get_source(env, module.PAGE.template)[0])
        used = meta.find_undeclared_variables(parsed)
        given = set(module.context(site))
        assert given <= used, f"{module.PAGE.template} is given {sorted(given - used)} and never uses them"
        # _trans: the i18n extension's own name for a {% trans %} block's first value when that is a call; a name
        # the template sets itself inside an {% if %} reads as undeclared to jinja2.meta, and is no context either
        own = {name.name for name in parsed.find_all(nodes.Name) if name.ctx == "store"}
        allowed = given | set(env.globals) | {"rel", "_trans"} | own
        assert used <= allowed, f"{module.PAGE.template} uses {sorted(used - given)}"


def test_no_generator_module_is_longer_than_350_lines():
    for path in GENERATOR.rglob("*.py"):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= MAX_MODULE_LINES, f"{path.relative_to(GENERATOR)}: {lines} lines"


def test_the_parity_checks_on_the_method_page_name_tests_that_exist():
    data = load_data("parity_checks.json")
    for check in data["checks"]:
        file = check.get("file", data["file"])
        source = (REPO_ROOT / file).read_text(encoding="utf-8")
        assert re.search(rf"^def {check['test']}\(", source, re.MULTILINE), check["test"]
        assert file in data["command"]


def test_every_data_file_is_used_by_a_module():
    sources = "\n".join(p.read_text(encoding="utf-8") for p in GENERATOR.rglob("*.py"))
    for path in DATA_DIR.glob("*.json"):
        assert path.name in sources, f"{path.name} is not read by any module"
