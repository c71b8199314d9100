"""The learned resolver end to end for a batch of mention contexts: candidates and their
evidence (evidence.py, three statements), L0 candidates absorbed into identified ones
(clusters.py), features and scores (one model call), decisions, and a second pass over the
bylines where a name was placed."""

from __future__ import annotations

import dataclasses
import gc
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from researchers.resolution import Decision, Outcome

from .clusters import absorb_l0_records
from .decide import Scored, decide, score_candidates
from .evidence import Candidates, candidates_for
from .features import Cursor, MentionContext
from .model import PairModel, load


def _candidates(
    cursor: Cursor,
    contexts: Sequence[MentionContext],
    model: PairModel | None,
    exclude: dict[MentionContext, frozenset[int]] | None,
    *,
    digested: bool = False,
) -> Candidates:
    candidates = candidates_for(cursor, contexts, exclude=exclude, digested=digested)
    if model is not None:
        candidates.profiles = absorb_l0_records(
            model, contexts, candidates.profiles, candidates.name_records
        )
    return candidates


def scored_contexts(
    cursor: Cursor,
    contexts: Sequence[MentionContext],
    *,
    model: PairModel | None,
    exclude: dict[MentionContext, frozenset[int]] | None = None,
) -> dict[MentionContext, list[Scored]]:
    """Features and scores of every pair; model None: features only (and no L0 record
    absorbed: the training set compares records as they are)."""
    candidates = _candidates(cursor, contexts, model, exclude)
    return score_candidates(
        model, contexts, candidates.profiles, name_records=candidates.name_records
    )


@contextmanager
def cyclic_collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for one batch. A batch makes hundreds of
    thousands of short-lived objects (name keys, feature rows, summaries) that reference
    counting frees alone, and every collection they set off walked the name caches' millions of
    entries too: about 40% of the resolver's CPU at 20,000 works (4.4 s against 2.6 s with the
    collector off, the same outcomes). Whatever cycles a batch leaves are collected after it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def resolve_contexts(
    cursor: Cursor,
    contexts: Sequence[MentionContext],
    *,
    model: PairModel | None = None,
    exclude: dict[MentionContext, frozenset[int]] | None = None,
) -> dict[MentionContext, Decision]:
    """Decide every mention, then once more those on a byline where another mention was just
    linked: the byline is resolved as a whole, and a name placed is a resolved coauthor of the
    others (the candidates are the first pass's; only the features change)."""
    with cyclic_collector_paused():
        return _resolve_contexts(cursor, contexts, model=model or load(), exclude=exclude)


def _resolve_contexts(
    cursor: Cursor,
    contexts: Sequence[MentionContext],
    *,
    model: PairModel,
    exclude: dict[MentionContext, frozenset[int]] | None,
) -> dict[MentionContext, Decision]:
    # Digested: deciding reads each candidate's works taken together, never one by one (only
    # training, through scored_contexts, thins a candidate down to single works).
    candidates = _candidates(cursor, contexts, model, exclude, digested=True)
    scored = score_candidates(
        model, contexts, candidates.profiles, name_records=candidates.name_records
    )
    decisions = {context: decide(context, scored[context], model) for context in contexts}
    linked: dict[int, set[int]] = defaultdict(set)
    for context, decision in decisions.items():
        if decision.outcome == Outcome.LINKED and decision.researcher_id is not None:
            linked[context.work_id or 0].add(decision.researcher_id)
    again: dict[MentionContext, MentionContext] = {}
    for context, decision in decisions.items():
        # A record this mention could itself be is left out: two names of one byline placed
        # on one record compete for it, and are no evidence for each other.
        placed = linked.get(context.work_id or 0, set()) - context.coauthor_ids
        placed -= {s.candidate.researcher_id for s in scored[context]}
        if context.work_id is not None and decision.outcome != Outcome.LINKED and placed:
            again[dataclasses.replace(context, coauthor_ids=context.coauthor_ids | placed)] = (
                context
            )
    if again:
        rescored = score_candidates(
            model,
            list(again),
            {new: candidates.profiles[old] for new, old in again.items()},
            name_records={new: candidates.name_records.get(old, 0) for new, old in again.items()},
        )
        for new, old in again.items():
            decisions[old] = decide(new, rescored[new], model)
    return decisions
