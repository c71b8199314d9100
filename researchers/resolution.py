"""The conservative name resolver's rules (issue 15, item 7): pure functions, no database.

A byline name without an identifier (no OpenAlex id, no ORCID iD) is linked to an existing
researcher only when the evidence leaves no real doubt, because a wrong link puts one person's
work on another's record, and that is worse than a duplicate record:

- the names are compatible, given names spelled out (an initial alone never links: 'J. Smith'
  and 'John Smith' may be the same person, but that is a moderator's call);
- at least two independent signals besides the name: two resolved coauthors of the work who
  have also written with the candidate, or one such coauthor and the same institution;
- never across identifiers: not to a record with a different dblp homonym number, not to a
  record that is already on the same byline (one person is not two authors of one work);
- the best candidate clearly beats the next one (MARGIN signals ahead).

A close call (compatible names and some evidence, but not enough, or two candidates too close)
becomes a "possibly the same person" candidate for moderators (claims.SamePersonCandidate);
anything else is a new L0 record. Every decision carries its reasons.

The database side (candidates for a whole batch, one query per kind) is the writer's:
ingest.writer.resolver, which hands the decisions worth keeping to the moderation queue
(claims.services.same_person).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .names import GivenNames, PersonName, names_compare

logger = logging.getLogger(__name__)

# A link needs this many signals; a coauthor counts one each (at most MAX_COAUTHOR_SIGNALS),
# the same institution one.
LINK_SIGNALS = 2
MAX_COAUTHOR_SIGNALS = 3
# The best candidate must be this many signals ahead of the next compatible one.
MARGIN = 2


class Outcome:
    LINKED = "linked"
    CLOSE_CALL = "close_call"
    NEW = "new"


@dataclass(frozen=True)
class MentionFacts:
    """What the byline says about a name-only author."""

    name: PersonName
    dblp_key: str | None  # 'wei wang 0001', an identity key
    coauthor_ids: frozenset[int]  # resolved researchers elsewhere on the same byline
    institution_ids: frozenset[int]
    affiliation_keys: frozenset[str]  # normalize_name of the free-text affiliations


@dataclass(frozen=True)
class CandidateFacts:
    """What bzpeer knows about an existing researcher the name might be."""

    researcher_id: int
    name: PersonName
    orcid: str | None
    dblp_key: str | None
    shared_coauthor_ids: frozenset[int]  # of the mention's coauthors, those who wrote with them
    institution_ids: frozenset[int]
    affiliation_keys: frozenset[str]


@dataclass(frozen=True)
class Assessment:
    candidate: CandidateFacts
    given_names: GivenNames
    coauthor_signals: int
    institution_signal: bool
    excluded: str = ""  # why this candidate can never be the mention

    @property
    def signals(self) -> int:
        return self.coauthor_signals + int(self.institution_signal)

    def reasons(self) -> dict[str, Any]:
        return {
            "given_names": self.given_names.name.lower(),
            "shared_coauthors": sorted(self.candidate.shared_coauthor_ids),
            "same_institution": self.institution_signal,
            "signals": self.signals,
            **({"excluded": self.excluded} if self.excluded else {}),
        }


@dataclass(frozen=True)
class Decision:
    outcome: str
    researcher_id: int | None = None  # LINKED: the researcher linked to
    score: float = 0.0
    reasons: dict[str, Any] = field(default_factory=dict)
    # CLOSE_CALL: each candidate a moderator should compare, with its evidence.
    close_calls: tuple[tuple[int, float, dict[str, Any]], ...] = ()


def assess(mention: MentionFacts, candidate: CandidateFacts) -> Assessment:
    given_names = names_compare(mention.name, candidate.name)
    shared = candidate.shared_coauthor_ids & mention.coauthor_ids
    institution = bool(
        (mention.institution_ids & candidate.institution_ids)
        or (mention.affiliation_keys & candidate.affiliation_keys)
    )
    excluded = ""
    if given_names == GivenNames.INCOMPATIBLE:
        excluded = "names differ"
    elif mention.dblp_key and candidate.dblp_key and mention.dblp_key != candidate.dblp_key:
        excluded = "different dblp homonym numbers"
    elif candidate.researcher_id in mention.coauthor_ids:
        excluded = "already another author of the same work"
    return Assessment(
        candidate=candidate,
        given_names=given_names,
        coauthor_signals=min(len(shared), MAX_COAUTHOR_SIGNALS),
        institution_signal=institution,
        excluded=excluded,
    )


def _strong_enough(assessment: Assessment) -> bool:
    """Two independent signals, at least one of them a shared coauthor."""
    return assessment.coauthor_signals >= 1 and assessment.signals >= LINK_SIGNALS


def decide(mention: MentionFacts, candidates: Sequence[CandidateFacts]) -> Decision:
    """Link, close call or new record, with the reasons."""
    if mention.dblp_key:
        same_key = [c for c in candidates if c.dblp_key == mention.dblp_key]
        if len(same_key) == 1:
            return Decision(
                Outcome.LINKED,
                researcher_id=same_key[0].researcher_id,
                score=1.0,
                reasons={"rule": "same dblp homonym key", "dblp": mention.dblp_key},
            )
    assessed = [assess(mention, c) for c in candidates]
    eligible = sorted(
        (a for a in assessed if not a.excluded and a.signals > 0),
        key=lambda a: (-a.signals, -a.given_names, a.candidate.researcher_id),
    )
    if not eligible:
        return Decision(Outcome.NEW, reasons={"rule": "no candidate with evidence"})
    best = eligible[0]
    runner_up = eligible[1].signals if len(eligible) > 1 else 0
    margin = best.signals - runner_up
    reasons = {
        **best.reasons(),
        "candidates_with_evidence": len(eligible),
        "margin": margin,
    }
    if _strong_enough(best) and best.given_names >= GivenNames.COMPATIBLE and margin >= MARGIN:
        return Decision(
            Outcome.LINKED,
            researcher_id=best.candidate.researcher_id,
            score=_score(best),
            reasons={"rule": "independent evidence", **reasons},
        )
    if best.signals >= 1:
        why = (
            "given names compatible only through initials"
            if best.given_names == GivenNames.INITIALS and _strong_enough(best)
            else "no clear margin over the next candidate"
            if _strong_enough(best)
            else "one signal only"
        )
        close = tuple(
            (a.candidate.researcher_id, _score(a), {**a.reasons(), "why_not_linked": why})
            for a in eligible
            if a.signals >= max(1, best.signals - MARGIN)
        )[:5]
        return Decision(Outcome.CLOSE_CALL, score=_score(best), reasons=reasons, close_calls=close)
    return Decision(Outcome.NEW, reasons=reasons)


def _score(assessment: Assessment) -> float:
    """A figure for sorting the moderation queue: signals, plus how well the names agree."""
    return round(assessment.signals + assessment.given_names / 10, 2)


# --- A decision as the writer hands it to the moderation queue --------------------------------


@dataclass(frozen=True)
class RecordedDecision:
    """One decision about one mention, as the writer hands it to the moderation queue."""

    origin: str
    origin_id: str
    name_key: str
    display_name: str
    researcher_id: int  # the record the mention now names (linked, or its new L0 record)
    decision: Decision
