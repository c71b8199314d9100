"""The learned resolver's decision: the hard rules first, then the model's calibrated score.

Hard rules (never overridden by a score):
- names must be compatible (researchers.names.names_compare): an initial alone never
  decides, nor does the team alone for it. A name given by initials links only on
  INITIALS_TEAM coauthors of the team, a signal of another kind (institution, venue, topics)
  and INITIALS_SIGNALS signals in all; a record known by initials only never links to a
  spelled-out name, and two sets of initials never link: at best a close call;
- a dblp homonym key decides: the same key links by itself, two different keys never meet;
- a researcher already elsewhere on the same byline is not the name;
- a link needs at least LINK_SIGNALS independent signals besides the name
  (features.independent_signals: the team, the institution, the venue, the topics), one of
  them the team (resolved coauthors, or coauthors by name, who wrote with the candidate).
- or, without a team, a rare name (rare_name_link): the full name's (family name, first
  initial) meets no other record in the database, the candidate is identified, and the
  institution, the venue or the topics back it.

Then the model: the best candidate is linked when its score is at least the model's `high`
threshold and no other candidate reaches `low` (a namesake with some evidence makes it a
moderator's call); candidates with evidence between the two, or held back by a rule, go to the
"possibly the same person" queue with their features side by side; the rest is a new record.
An L0 record is no rival to an identified one, and an identified record that clears the bar is
preferred to an L0 one that scores higher (L0 records are often the person's own bylines).
Issue 15's rules no longer link under the model's bar: with the batch's bylines and the second
pass as evidence they linked a visitor to their host lab's namesake (synthetic corpus).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from researchers.names import GivenNames
from researchers.resolution import Decision, Outcome

from .features import (
    CandidateProfile,
    MentionContext,
    independent_signals,
    initials_only,
    left_out,
    pair_features,
    signal_count,
)
from .model import PairModel

LINK_SIGNALS = 2
# A rare name (rare_name_link): the only record in the database its (family name, first
# initial) key meets.
RARE_NAME_RECORDS = 1
# A name given by initials links only on more evidence, of more than one kind (link_allowed).
INITIALS_TEAM = 2
INITIALS_SIGNALS = 3
MAX_CLOSE_CALLS = 5


@dataclass(frozen=True)
class Scored:
    candidate: CandidateProfile
    features: dict[str, float]
    signals: dict[str, bool | int]
    score: float
    excluded: str

    @property
    def signal_count(self) -> int:
        return signal_count(self.signals)

    @property
    def given_names(self) -> GivenNames:
        return GivenNames(int(self.features["given_names"]))

    def reasons(self, mention: MentionContext) -> dict[str, Any]:
        digest = self.candidate.digest
        shared = set(digest.coauthor_ids & mention.coauthor_ids) if digest else set()
        copies = left_out(mention, self.candidate)
        for work_id, work in self.candidate.works.items():
            if work_id not in copies:
                shared |= work.coauthor_ids & mention.coauthor_ids
        return {
            "given_names": self.given_names.name.lower(),
            "shared_coauthors": sorted(shared),
            "same_institution": bool(self.signals["institution"]),
            "signals": self.signal_count,
            "evidence": {k: v for k, v in self.signals.items()},
            "score": round(self.score, 4),
            "features": {
                k: (None if v != v else round(v, 4))  # NaN: no evidence either way
                for k, v in self.features.items()
            },
            **({"excluded": self.excluded} if self.excluded else {}),
        }


def identified(candidate: CandidateProfile) -> bool:
    """Whether a record's person is known (an ORCID iD, an OpenAlex id or a dblp key)."""
    return bool(candidate.orcid or candidate.openalex_id or candidate.dblp_key)


def exclusion(mention: MentionContext, candidate: CandidateProfile, given: GivenNames) -> str:
    if given == GivenNames.INCOMPATIBLE:
        return "names differ"
    if mention.dblp_key and candidate.dblp_key and mention.dblp_key != candidate.dblp_key:
        return "different dblp homonym numbers"
    if candidate.researcher_id in mention.coauthor_ids:
        return "already another author of the same work"
    return ""


def link_allowed(scored: Scored, mention: MentionContext) -> bool:
    """The rules a link must pass whatever its score."""
    if (
        scored.excluded
        or scored.signal_count < LINK_SIGNALS
        # The team is the one personal signal: field, venue and even institution are shared
        # by namesakes in one department (the real corpus's probes have such pairs).
        or int(scored.signals["team"]) < 1
    ):
        return False
    mention_initials = initials_only(mention.name)
    candidate_initials = bool(scored.features["candidate_initials_only"])
    if not mention_initials and not candidate_initials:
        return scored.given_names >= GivenNames.COMPATIBLE
    # An initial alone never decides: 'J. Smith' may be John or Jane. Nor does the team alone
    # decide for it, however many coauthors it brings: they are one kind of evidence, one
    # group of people, and issue 15's writer tests want 'J. Smith' beside three of John
    # Smith's coauthors and nothing else to be a moderator's call. A name given by initials
    # links only with two coauthors of the team, a signal of another kind (the institution,
    # the venue or the topics) and INITIALS_SIGNALS in all; a record known by initials only
    # is never linked to a spelled-out name (it never said which given name it is); two sets
    # of initials never link. The rest goes to the moderators' queue.
    others = scored.signal_count - int(scored.signals["team"])
    return (
        mention_initials
        and not candidate_initials
        and scored.given_names >= GivenNames.INITIALS
        and int(scored.signals["team"]) >= INITIALS_TEAM
        and others >= 1
        and scored.signal_count >= INITIALS_SIGNALS
    )


def rare_name_link(scored: Scored, mention: MentionContext) -> bool:
    """A rare full name backed by one signal of another kind links without a team (S2AND and
    OpenAlex weigh a name by how common it is): the first given name spelled out and the same
    on both sides, the candidate an identified record (an ORCID iD, an OpenAlex id or a dblp
    key: an L0 record is one byline, nobody knows whose), the only record in the whole database
    that the name's (family name, first initial) key meets (evidence.makes_name_common: a
    namesake anywhere, compatible or not, identified or spelled otherwise, makes the name
    common, and common names still need the team), and the same institution, venue or topics.
    Most of the real records' misses are such bylines: the person's other works share no
    coauthor with them (docs/importing.md). An initial never decides, so 'J. Smith' never
    links this way; two ORCID iDs never meet here (the mention has none)."""
    features = scored.features
    others = scored.signal_count - int(scored.signals["team"])
    return (
        not scored.excluded
        and identified(scored.candidate)
        and features["name_key_records"] == RARE_NAME_RECORDS  # NaN (not counted): never
        and not initials_only(mention.name)
        and not features["candidate_initials_only"]
        and scored.given_names >= GivenNames.COMPATIBLE
        and others >= 1
    )


def score_candidates(
    model: PairModel | None,
    mentions: Sequence[MentionContext],
    candidates: dict[MentionContext, list[CandidateProfile]],
    *,
    name_records: dict[MentionContext, int] | None = None,
) -> dict[MentionContext, list[Scored]]:
    """Features and scores of every pair of the batch (one model call for all of them). model
    None: features only (scores 0; the training set is built so). name_records: the records
    carrying each mention's name key (evidence.makes_name_common; missing: not counted)."""
    pending: list[tuple[MentionContext, CandidateProfile, dict[str, float], str]] = []
    for mention in mentions:
        found = candidates.get(mention, [])
        records = (name_records or {}).get(mention)
        for candidate in found:
            features = pair_features(
                mention, candidate, name_candidates=len(found), name_records=records
            )
            given = GivenNames(int(features["given_names"]))
            pending.append((mention, candidate, features, exclusion(mention, candidate, given)))
    rows = [features for _, _, features, _ in pending]
    scores = model.scores(rows) if model is not None else [0.0] * len(rows)
    scored: dict[MentionContext, list[Scored]] = {m: [] for m in mentions}
    for (mention, candidate, features, excluded), score in zip(pending, scores, strict=True):
        scored[mention].append(
            Scored(candidate, features, independent_signals(features), score, excluded)
        )
    for mention in mentions:
        scored[mention].sort(key=lambda s: (-s.score, s.candidate.researcher_id))
    return scored


def _linked(
    scored: Scored, rule: str, mention: MentionContext, summary: dict[str, Any]
) -> Decision:
    return Decision(
        Outcome.LINKED,
        researcher_id=scored.candidate.researcher_id,
        score=round(scored.score, 4),
        reasons={"rule": rule, **summary, **scored.reasons(mention)},
    )


def decide(mention: MentionContext, scored: Sequence[Scored], model: PairModel) -> Decision:
    """Link, close call or new record for one mention, with the reasons."""
    if mention.dblp_key:
        same_key = [s for s in scored if s.candidate.dblp_key == mention.dblp_key]
        if len(same_key) == 1:
            return Decision(
                Outcome.LINKED,
                researcher_id=same_key[0].candidate.researcher_id,
                score=1.0,
                reasons={"rule": "same dblp homonym key", "dblp": mention.dblp_key},
            )
    eligible = [s for s in scored if not s.excluded]
    if not eligible:
        return Decision(Outcome.NEW, reasons={"rule": "no candidate with evidence"})
    # An identified record that clears the bar is preferred to an L0 one that scores higher:
    # L0 records of the same name are often the person's own unplaced bylines.
    best = next(
        (
            s
            for s in eligible
            if identified(s.candidate) and s.score >= model.high and link_allowed(s, mention)
        ),
        eligible[0],
    )
    # A namesake with some evidence makes it a moderator's call (a margin in signals let a
    # consortium's namesakes through on the synthetic corpus). An L0 record is no rival to an
    # identified one: nobody knows whose it is, and the re-run compares the two later.
    rivals = [
        s
        for s in eligible
        if s is not best
        and (identified(s.candidate) or not identified(best.candidate))
        # Two resolved coauthors in common make a namesake a rival whatever the model says.
        and s.signal_count >= 1
        and (s.score >= model.low or s.features["shared_coauthor_ids"] >= 2)
    ]
    summary = {
        "model": model.version,
        "thresholds": {"high": model.high, "low": model.low},
        "candidates": len(scored),
    }
    linked = best.score >= model.high and link_allowed(best, mention) and not rivals
    if linked and identified(best.candidate):
        return _linked(best, "independent evidence", mention, summary)
    # A rare name is its only identified candidate; it is preferred to an L0 record, as above.
    rare = next((s for s in eligible if rare_name_link(s, mention)), None)
    if rare is not None:
        return _linked(rare, "rare name and another signal", mention, summary)
    if linked:
        return _linked(best, "independent evidence", mention, summary)
    close = [
        s
        for s in eligible
        # Two resolved coauthors in common make a namesake a rival whatever the model says.
        if s.signal_count >= 1 and (s.score >= model.low or s.features["shared_coauthor_ids"] >= 2)
    ][:MAX_CLOSE_CALLS]
    if not close:
        return Decision(Outcome.NEW, reasons={**summary, **best.reasons(mention)})

    def why(s: Scored) -> str:
        if s.signal_count < LINK_SIGNALS:
            return "one signal only"
        if int(s.signals["team"]) < 1:
            return "no coauthor in common"
        if not link_allowed(s, mention):
            if initials_only(mention.name) and s.features["candidate_initials_only"]:
                return "both names are initials only"
            return "given names compatible only through initials, and too little else"
        if len(close) > 1:
            return "no clear margin over the next candidate"
        return "score below the link threshold"

    return Decision(
        Outcome.CLOSE_CALL,
        score=round(close[0].score, 4),
        reasons={**summary, **close[0].reasons(mention)},
        close_calls=tuple(
            (
                s.candidate.researcher_id,
                round(s.score, 4),
                {**s.reasons(mention), "why_not_linked": why(s)},
            )
            for s in close
        ),
    )
