"""The article's 4.2 line counts beside the lines of its own snippets, counted as ``article_figures.json`` says."""

from __future__ import annotations

from typing import Any

from fwbench.frameworks import FRAMEWORKS
from generator import fmt
from generator.claims import CONFIRMED, CONTRADICTED, Claim
from generator.i18n import _, part_separator


def code_size_claims(article: dict[str, Any]) -> list[Claim]:
    """4.2's stated line counts beside the lines of the article's own snippets (counted as the data says)."""
    spec = article["code_snippets"]
    stated, strict, layout = spec["stated_lines"], spec["counted_code_lines"], spec["counted_with_layout"]
    conditions = (_("the article's own snippets"), _("line breaks restored, one statement per line"))
    rows = []
    for fw in FRAMEWORKS:
        matches = [
            name for name, counts in ((_("code lines"), strict), (_("with layout"), layout)) if counts[fw] == stated[fw]
        ]
        rows.append(
            Claim(
                section=spec["section"],
                claim=_("{framework}: the snippet's length").format(framework=fmt.label(fw)),
                article=_("{lines} lines").format(lines=stated[fw]),
                ours=_("{code} code lines, {layout} with its comment and blank line").format(
                    code=strict[fw], layout=layout[fw]
                ),
                verdict=CONFIRMED if matches else CONTRADICTED,
                reason=part_separator().join(
                    (
                        _("matches the count {count}").format(count=matches[0])
                        if matches
                        else _("matches neither count"),
                        _("counted in its snippet, one statement per line (see the longest-snippet row)"),
                    )
                ),
                conditions=conditions,
            )
        )
    longest = max(stated, key=stated.get)

    def strictly_longest(counts: dict[str, int]) -> bool:
        return all(counts[longest] > counts[fw] for fw in FRAMEWORKS if fw != longest)

    holds = strictly_longest(strict) and strictly_longest(layout)
    rows.append(
        Claim(
            section=spec["section"],
            claim=_("{framework}'s snippet is the longest").format(framework=fmt.label(longest)),
            article=", ".join(f"{fmt.label(fw)} {stated[fw]}" for fw in FRAMEWORKS),
            ours=", ".join(f"{fmt.label(fw)} {strict[fw]} ({layout[fw]})" for fw in FRAMEWORKS),
            verdict=CONFIRMED if holds else CONTRADICTED,
            reason=_("code lines (with layout).") + " " + spec["counting"],
            conditions=conditions,
        )
    )
    return rows
