"""The learned resolver end to end for a batch of mention contexts: candidates and their
evidence (evidence.py, three statements), features and scores (one model call), decisions."""

from __future__ import annotations

from collections.abc import Sequence

from researchers.resolution import Decision

from .decide import Scored, decide, score_candidates
from .evidence import candidates_for
from .features import Cursor, MentionContext
from .model import PairModel, load


def scored_contexts(
    cursor: Cursor,
    contexts: Sequence[MentionContext],
    *,
    model: PairModel | None,
    exclude: dict[MentionContext, frozenset[int]] | None = None,
) -> dict[MentionContext, list[Scored]]:
    """Features and scores of every pair; model None: features only."""
    return score_candidates(model, contexts, candidates_for(cursor, contexts, exclude=exclude))


def resolve_contexts(
    cursor: Cursor,
    contexts: Sequence[MentionContext],
    *,
    model: PairModel | None = None,
    exclude: dict[MentionContext, frozenset[int]] | None = None,
) -> dict[MentionContext, Decision]:
    model = model or load()
    scored = scored_contexts(cursor, contexts, model=model, exclude=exclude)
    return {context: decide(context, scored[context], model) for context in contexts}
