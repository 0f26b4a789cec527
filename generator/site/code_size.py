"""4.2 Code size: the code lines of fwbench's own model and training step per framework, with the files."""

from __future__ import annotations

from typing import Any

from fwbench.frameworks import REGISTRY, label
from generator.i18n import N_, _, translate
from generator.records.codesize import PARTS, compared, file_name, sources_folder, trains_another_model
from generator.site import Page
from generator.views import downloads
from generator.views.markdown_table import Grid
from generator.views.sitedata import SiteData

PAGE = Page("devex/code-size.md", "code_size.md.j2", N_("4.2 Code size"), N_("4 Developer experience"), 4.2)


def context(site: SiteData) -> dict[str, Any]:
    """The code-size page's context: the counts as a grid (the compared frameworks as columns), the files themselves,
    and the frameworks left out because they train another's model (``codesize.compared``)."""
    sources = site.sources
    folder = sources_folder(site.source_root)  # the model's and the trainer's folders lie under it
    lines = {(s.part, s.framework): s.lines for s in sources}
    rows = [
        [translate(part), *(_("missing") if lines[(part, fw)] is None else str(lines[(part, fw)]) for fw in compared())]
        for part in PARTS
    ]
    return {
        "counts": Grid([_("part"), *(label(fw) for fw in compared())], rows),
        "left_out": [
            {
                "framework": label(name),
                "owner": label(owner),
                "trainer": file_name(REGISTRY[name].trainer_module),
            }
            for name, owner in trains_another_model().items()
        ],
        "csv": site.add_file("data/code-size.csv", downloads.code_size_csv(sources)),
        "sources_dir": site.display_path(folder),
        "missing": [s.path.relative_to(folder).as_posix() for s in sources if s.text is None],
        "parts": {translate(part): [s for s in sources if s.part == part and s.text is not None] for part in PARTS},
    }
