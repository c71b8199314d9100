"""The ranking of collaborator suggestions: one pure function over signal rows.

Both the site (discovery.selectors.suggestions, which reads the signals from the database) and
the back-test (bench.suggestions_eval, which computes them on a synthetic corpus with the
coauthorships of its last two years hidden) call `suggestions_ranked`, so the figures the
back-test reports are those of the ranking the site shows. Nothing here touches Django.

The score of a candidate for researcher R (docs/discovery.md, "Collaborator suggestions"):

    score = 6.0  * max(cosine, 0)              closeness in meaning (researcher embeddings)
          + 4.0  * log(1 + common coauthors)   two-step coauthor paths: how many
          + 2.0  * log(1 + common weight)      ... and how strong (sum of the weaker edge)
          + 0.25 * log(1 + citations)          citations between their works, either way
          + 1.0  * topic overlap               shared topics (histogram intersection, 0..1)

The weights are the best setting of a grid on the back-test's training corpora (seeds 101-103,
3,000 researchers each: bench/suggestions_tune.py) among those that keep every signal above
zero; the seeds the back-test reports (7, 11, 13, 17, 19) were never used to choose them. They
are a documented choice on synthetic data, not a fit to real data.

Open to collaborate comes first, then the score, then the candidate's id (a stable order).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

WEIGHT_MEANING = 6.0
WEIGHT_COMMON_COAUTHORS = 4.0
WEIGHT_COMMON_WEIGHT = 2.0
WEIGHT_CITATIONS = 0.25
WEIGHT_TOPICS = 1.0

SUGGESTIONS_LIMIT = 20
# A part of the score smaller than this is not worth a word in the reason.
REASON_MIN_CONTRIBUTION = 0.05
REASON_MAX_PARTS = 3


@dataclass(frozen=True)
class SuggestionSignals:
    """What is known of one candidate seen from researcher R. Counts are over R's works and the
    candidate's; `meaning` is None when either of them has no embedding."""

    candidate_id: int
    open_to_collaborate: bool = True
    meaning: float | None = None
    common_coauthors: int = 0
    # Sum over the common coauthors of the weaker of the two edges (graph's edge weight).
    common_coauthor_weight: float = 0.0
    # Citations from the candidate's works to R's, and from R's to the candidate's.
    they_cited_you: int = 0
    you_cited_them: int = 0
    # Histogram intersection of the two topic profiles over R's main topics, in [0, 1].
    topic_overlap: float = 0.0
    # The shared topic that weighs most in the overlap, by name ("" when none).
    top_topic: str = ""


@dataclass(frozen=True)
class RankedSuggestion:
    signals: SuggestionSignals
    score: float
    # Each signal's part of the score, by name: meaning, coauthors, citations, topics.
    parts: dict[str, float]

    @property
    def candidate_id(self) -> int:
        return self.signals.candidate_id

    @property
    def reason(self) -> str:
        return suggestion_reason(self)


def score_parts(signals: SuggestionSignals) -> dict[str, float]:
    """Each signal's contribution to the score (their sum is the score)."""
    meaning = max(signals.meaning or 0.0, 0.0)
    return {
        "meaning": WEIGHT_MEANING * meaning,
        "coauthors": WEIGHT_COMMON_COAUTHORS * math.log1p(signals.common_coauthors)
        + WEIGHT_COMMON_WEIGHT * math.log1p(max(signals.common_coauthor_weight, 0.0)),
        "citations": WEIGHT_CITATIONS * math.log1p(signals.they_cited_you + signals.you_cited_them),
        "topics": WEIGHT_TOPICS * min(max(signals.topic_overlap, 0.0), 1.0),
    }


def suggestions_ranked(
    rows: Iterable[SuggestionSignals], *, limit: int | None = SUGGESTIONS_LIMIT
) -> list[RankedSuggestion]:
    """The candidates in the order they are suggested: open to collaborate first, then by
    score, highest first; ties by candidate id. A candidate with no signal at all (score 0) is
    never suggested. `limit=None` keeps them all (the site takes a longer list, then drops the
    ones its exclusions refuse)."""
    ranked = []
    for signals in rows:
        parts = score_parts(signals)
        score = sum(parts.values())
        if score > 0:
            ranked.append(RankedSuggestion(signals=signals, score=score, parts=parts))
    ranked.sort(key=lambda s: (not s.signals.open_to_collaborate, -s.score, s.candidate_id))
    return ranked if limit is None else ranked[:limit]


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def _phrase(name: str, signals: SuggestionSignals) -> str:
    if name == "topics":
        if signals.top_topic:
            return f"you both write about {signals.top_topic}"
        return "you write on the same topics"
    if name == "coauthors":
        n = signals.common_coauthors
        if n == 1:
            return "1 of your coauthors has written with them"
        return f"{n} of your coauthors have written with them"
    if name == "citations":
        said = []
        if signals.they_cited_you:
            said.append(f"they cited you {_times(signals.they_cited_you)}")
        if signals.you_cited_them:
            said.append(f"you cited them {_times(signals.you_cited_them)}")
        return "; ".join(said)
    return "your work and theirs are close in meaning"


def suggestion_reason(suggestion: RankedSuggestion) -> str:
    """Why, in one sentence built from the strongest signals (up to three), strongest first:
    "You both write about Graph neural networks; 3 of your coauthors have written with them;
    they cited you 4 times"."""
    strongest = sorted(
        (
            (value, name)
            for name, value in suggestion.parts.items()
            if value >= REASON_MIN_CONTRIBUTION
        ),
        key=lambda pair: (-pair[0], pair[1]),
    )[:REASON_MAX_PARTS]
    phrases = [_phrase(name, suggestion.signals) for _, name in strongest]
    sentence = "; ".join(phrase for phrase in phrases if phrase)
    return sentence[:1].upper() + sentence[1:] if sentence else ""
