"""What moved a forecast, in words: one sentence per input from its SHAP value (in log(1 +
citations), so exp(contribution) is the factor it multiplied the forecast's citations by)."""

from __future__ import annotations

import math

_LABELS = {
    "novelty_percentile": ("its novelty percentile ({value:.0f}%)", "having no novelty percentile"),
    "references": ("its {value:.0f} references", "its references"),
    "team_size": ("its team of {value:.0f} authors", "its team size"),
    "authors_prior_works_max": (
        "its most prolific author's {value:.0f} earlier works",
        "having no identified author",
    ),
    "authors_prior_works_mean": (
        "its authors' {value:.1f} earlier works on average",
        "having no identified author",
    ),
    "authors_prior_citations_max": (
        "its most cited author's {value:.0f} earlier citations",
        "having no identified author",
    ),
    "authors_prior_citations_mean": (
        "its authors' {value:.1f} earlier citations on average",
        "having no identified author",
    ),
    "venue_prior_works": ("its venue's {value:.0f} earlier works", "having no known venue"),
    "venue_prior_citations_per_work": (
        "its venue's earlier record ({value:.1f} citations a work)",
        "its venue having no earlier record",
    ),
    "topic_recent_works": (
        "{value:.0f} works in its topic in the two years before",
        "having no known topic",
    ),
    "topic_momentum": (
        "its topic's momentum (×{value:.2f} works in the two years before against the two "
        "before those)",
        "having no known topic",
    ),
    "text": ("its title and abstract", "its title and abstract"),
}


def contribution_sentence(name: str, value: float | None, contribution: float) -> str:
    """ "its venue's earlier record (12.3 citations a work) raised the forecast ×1.52"."""
    known, unknown = _LABELS.get(name, (name, name))
    subject = unknown if value is None else known.format(value=value)
    factor = math.exp(contribution)
    if contribution >= 0:
        return f"{subject} raised the forecast ×{factor:.2f}"
    return f"{subject} lowered the forecast ×{factor:.2f}"


def contributions_in_words(contributions: list[list[object]]) -> list[str]:
    sentences = []
    for row in contributions:
        name, value, contribution = row[0], row[1], row[2]
        sentences.append(
            contribution_sentence(
                str(name),
                None if value is None else float(value),  # type: ignore[arg-type]
                float(contribution),  # type: ignore[arg-type]
            )
        )
    return sentences
