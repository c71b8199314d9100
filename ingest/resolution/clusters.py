"""A mention's L0 candidates absorbed into its identified ones before the decision.

Name-only bylines become L0 records, one per byline: a person with an identified record and a
dozen unplaced bylines splits their evidence thirteen ways, and the mention's team is often on
one of the L0 bylines rather than on the identified works (the real corpus's Carl Boettiger:
eight L0 records beside his ORCID record). Each L0 candidate's works are compared with each
identified candidate, as a new byline would be (the same features, model and rules); an L0
record that one identified candidate, and only one, would link is read as part of that
candidate for this mention's decision. Nothing is merged here: the weekly re-run does that.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence

from researchers.names import GivenNames, PersonName, person_name

from .decide import Scored, exclusion, identified, link_allowed, rare_name_link
from .features import (
    CandidateProfile,
    CandidateWork,
    MentionContext,
    independent_signals,
    pair_features,
)
from .model import PairModel


def _work_context(l0: CandidateProfile, work_id: int, work: CandidateWork) -> MentionContext:
    name = work.raw_name or l0.display_name
    return MentionContext(
        key=("l0", l0.researcher_id, work_id),
        name=person_name(name),
        display_name=name,
        work_id=work_id,
        coauthor_ids=work.coauthor_ids,
        coauthor_names=work.coauthor_names,
        institution_ids=work.institution_ids,
        affiliation_names=work.affiliation_names,
        topic_keys=work.topic_keys,
        venue_id=work.venue_id,
        year=work.year,
        title_key=work.title_key,
    )


def absorb_l0_records(
    model: PairModel,
    mentions: Sequence[MentionContext],
    candidates: dict[MentionContext, list[CandidateProfile]],
    name_records: dict[MentionContext, int] | None = None,
) -> dict[MentionContext, list[CandidateProfile]]:
    """The candidates of every mention, each identified one holding the works of the L0
    candidates it alone would link (see the module docstring), by the team or by a rare name
    (decide.rare_name_link: an L0 byline of exactly the mention's rare name, with a signal of
    its own in common with the identified record). One model call for the batch.
    name_records: how common each mention's name is (evidence.makes_name_common)."""
    pending: list[tuple[MentionContext, CandidateProfile, CandidateProfile, MentionContext]] = []
    for mention in mentions:
        found = candidates.get(mention, [])
        known = [c for c in found if identified(c)]
        for l0 in (c for c in found if not identified(c)):
            for work_id, work in l0.works.items():
                if work_id == mention.work_id:
                    continue
                context = _work_context(l0, work_id, work)
                pending.extend((mention, candidate, l0, context) for candidate in known)
    if not pending:
        return candidates
    rows = [
        pair_features(
            context,
            candidate,
            name_candidates=len(candidates[mention]),
            # The mention's count holds for an L0 byline of the very same name (neither
            # counts the other: makes_name_common); any other spelling is not counted.
            name_records=(name_records or {}).get(mention)
            if _full(context.name) == _full(mention.name)
            else None,
        )
        for mention, candidate, _, context in pending
    ]
    scores = model.scores(rows)
    # (mention, L0 record) -> the identified candidates that would link one of its works.
    linking: dict[tuple[MentionContext, int], set[int]] = defaultdict(set)
    for (mention, candidate, l0, context), features, score in zip(
        pending, rows, scores, strict=True
    ):
        scored = Scored(
            candidate,
            features,
            independent_signals(features),
            score,
            exclusion(context, candidate, candidate_given(features)),
        )
        if (score >= model.high and link_allowed(scored, context)) or rare_name_link(
            scored, context
        ):
            linking[(mention, l0.researcher_id)].add(candidate.researcher_id)
    absorbed: dict[MentionContext, dict[int, list[CandidateProfile]]] = defaultdict(
        lambda: defaultdict(list)
    )
    by_id = {c.researcher_id: c for cs in candidates.values() for c in cs}
    for (mention, l0_id), owners in linking.items():
        if len(owners) == 1:
            absorbed[mention][next(iter(owners))].append(by_id[l0_id])
    result: dict[MentionContext, list[CandidateProfile]] = {}
    for mention, found in candidates.items():
        into = absorbed.get(mention)
        if not into:
            result[mention] = found
            continue
        gone = {l0.researcher_id for l0s in into.values() for l0 in l0s}
        result[mention] = [
            _with_works(c, into[c.researcher_id]) if c.researcher_id in into else c
            for c in found
            if c.researcher_id not in gone
        ]
    return result


def _full(name: PersonName) -> str:
    return " ".join(name.given + name.family)


def candidate_given(features: dict[str, float]) -> GivenNames:
    return GivenNames(int(features["given_names"]))


def _with_works(candidate: CandidateProfile, l0s: list[CandidateProfile]) -> CandidateProfile:
    works = dict(candidate.works)
    for l0 in l0s:
        works.update(l0.works)
    return dataclasses.replace(candidate, works=works, summaries={})
