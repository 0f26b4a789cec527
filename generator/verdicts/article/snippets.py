"""The article's 4.2 line counts beside the lines of its own snippets, counted as ``article_figures.json`` says:
the article against itself, so a match is CONSISTENT, not CONFIRMED, and a mismatch INCONSISTENT, not CONTRADICTED."""

from __future__ import annotations

from typing import Any

from fwbench.frameworks import label
from generator.i18n import N_
from generator.message import Joined, Message, parenthesised
from generator.verdicts.article import article_frameworks
from generator.verdicts.claims import Claim, own_figures_verdict


def code_size_claims(article: dict[str, Any]) -> list[Claim]:
    """4.2's stated line counts beside the lines of the article's own snippets (counted as the data says)."""
    spec = article["code_snippets"]
    stated, strict, layout = spec["stated_lines"], spec["counted_code_lines"], spec["counted_with_layout"]
    frameworks = article_frameworks(article)
    conditions = (
        Message(N_("the article's own snippets")),
        Message(N_("line breaks restored, one statement per line")),
    )
    rows = []
    for fw in frameworks:
        matches = [
            name
            for name, counts in ((N_("code lines"), strict), (N_("with layout"), layout))
            if counts[fw] == stated[fw]
        ]
        rows.append(
            Claim(
                section=spec["section"],
                claim=Message(N_("{framework}: the snippet's length"), {"framework": label(fw)}),
                article=Message(N_("{lines} lines"), {"lines": stated[fw]}),
                ours=Message(
                    N_("{code} code lines, {layout} with its comment and blank line"),
                    {"code": strict[fw], "layout": layout[fw]},
                ),
                verdict=own_figures_verdict(bool(matches)),
                reason=(
                    Message(N_("matches the count {count}"), {"count": Message(matches[0])})
                    if matches
                    else Message(N_("matches neither count")),
                    Message(N_("counted in its snippet, one statement per line (see the longest-snippet row)")),
                ),
                conditions=conditions,
            )
        )
    longest = max(stated, key=stated.get)

    def strictly_longest(counts: dict[str, int]) -> bool:
        return all(counts[longest] > counts[fw] for fw in frameworks if fw != longest)

    holds = strictly_longest(strict) and strictly_longest(layout)
    rows.append(
        Claim(
            section=spec["section"],
            claim=Message(N_("{framework}'s snippet is the longest"), {"framework": label(longest)}),
            article=Joined(tuple(f"{label(fw)} {stated[fw]}" for fw in frameworks)),
            ours=Joined(tuple(parenthesised(f"{label(fw)} {strict[fw]}", str(layout[fw])) for fw in frameworks)),
            verdict=own_figures_verdict(holds),
            reason=(Joined((Message(N_("code lines (with layout).")), Message(spec["counting"])), " "),),
            conditions=conditions,
        )
    )
    return rows
