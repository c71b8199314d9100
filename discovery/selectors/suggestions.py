"""Collaborator suggestions for the signed-in claimant of a record (issue 26, item 4).

For a user with an approved claim on researcher R (collaboration's `verified_record_of`), up
to 20 people R has not written with, ranked by discovery.suggestion_ranking from four signals
read set-based: closeness in meaning (ResearcherEmbedding cosine), two-step coauthor paths
(graph's CoauthorEdge), citations between their works either way (publications' Citation) and
shared topics (WorkTopic over both sides' works).

Candidates are only people an invitation could reach: records claimed by an active account,
not merged. They come from the union of R's 2-hop neighbours, the researchers citing or cited
by R, the strongest in R's topics and the nearest by embedding. Excluded, all here:
- R and the user themselves, R's coauthors (an edge, or any joint work whatever its size);
- anyone blocked, either way (collaboration's Block), anyone with whom an invitation is pending
  or was accepted (they are in touch already);
- a conflict of interest with R (graph's rule, `graph.selectors.coi.conflicts_of_interest`,
  run on the short list);
- anyone `collaboration.selectors.access.invite_refusals` refuses (the one invitation rule,
  set-based: the whole short list goes through it at once). The SQL drops beforehand who that
  rule would refuse for sure (suspended, accepting nobody, or coauthors only: a candidate is
  never a coauthor), so the short list is rarely cut.

Queries, a fixed number whatever the corpus and however many are suggested: the record and
the sender's suspension (2), the embeddings with R's own (1), the signals (1), the short list's
records with R's (1), the COI rule (2, a third when a last known institution has no current
affiliation row), the invitation rule (4). 11 in all; 5 when the signals find nobody (no COI
rule and no invitation rule on an empty list).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.utils import timezone

from bzpeer.users.models import User
from claims.models import Claim, ClaimStatus
from collaboration.selectors.access import (
    invite_refusals,
    messaging_suspended,
    verified_record_of,
)
from discovery.suggestion_ranking import (
    SUGGESTIONS_LIMIT,
    RankedSuggestion,
    SuggestionSignals,
    suggestions_ranked,
)
from discovery.vectors import vector_from_bytes, vectors_from_bytes
from graph.selectors.coi import COI_MAX_RESEARCHERS, conflicts_of_interest
from researchers.models import Researcher

# How many of R's topics the overlap is taken over, how many of the strongest in them become
# candidates, and how many nearest by meaning.
TOPICS_COMPARED = 20
TOPIC_CANDIDATES = 200
NEAREST_CANDIDATES = 50
# The ranked list cut before the COI rule and invite_refusals (COI takes at most 50 records).
SHORT_LIST_SIZE = COI_MAX_RESEARCHERS - 1
PANEL_LIMIT = 5

# Who an invitation from this user could reach, blocks and settings refusals already out; the
# same fragment opens both statements, so the embeddings read and the signals agree.
_REACHABLE_SQL = """
reachable AS MATERIALIZED (
  SELECT r.id, r.open_to_collaborate
  FROM researchers_researcher r
  JOIN users_user u ON u.id = r.claimed_by_id AND u.is_active
  WHERE r.merged_into_id IS NULL AND r.id <> %(record)s AND r.claimed_by_id <> %(user)s
    AND NOT EXISTS (
      SELECT 1 FROM collaboration_block b
      WHERE (b.blocker_id = %(user)s AND b.blocked_id = r.claimed_by_id)
         OR (b.blocker_id = r.claimed_by_id AND b.blocked_id = %(user)s))
    AND NOT EXISTS (
      SELECT 1 FROM collaboration_collaborationsettings s
      WHERE s.user_id = r.claimed_by_id
        AND (s.messaging_suspended_at IS NOT NULL OR s.who_may_invite <> 'verified'))
    AND NOT EXISTS (
      SELECT 1 FROM collaboration_invitation i
      WHERE i.status IN ('pending', 'accepted')
        AND ((i.sender_id = %(user)s AND i.recipient_id = r.claimed_by_id)
          OR (i.sender_id = r.claimed_by_id AND i.recipient_id = %(user)s)))
)"""

_EMBEDDINGS_SQL = f"""
WITH {_REACHABLE_SQL},
mine AS (SELECT model_name, dimensions FROM discovery_researcherembedding
         WHERE researcher_id = %(record)s)
SELECT e.researcher_id, e.vector
FROM discovery_researcherembedding e
JOIN mine ON mine.model_name = e.model_name AND mine.dimensions = e.dimensions
WHERE e.researcher_id = %(record)s OR e.researcher_id IN (SELECT id FROM reachable)
"""

_SIGNALS_SQL = f"""
WITH {_REACHABLE_SQL},
my_works AS MATERIALIZED (
  SELECT DISTINCT work_id FROM publications_authorship WHERE researcher_id = %(record)s
),
coauthors AS MATERIALIZED (
  SELECT researcher_b_id AS other, weight FROM graph_coauthoredge WHERE researcher_a_id = %(record)s
  UNION ALL
  SELECT researcher_a_id, weight FROM graph_coauthoredge WHERE researcher_b_id = %(record)s
),
two_hop AS (
  SELECT e.other AS candidate, count(*) AS common, sum(least(c.weight, e.weight)) AS common_weight
  FROM coauthors c
  CROSS JOIN LATERAL (
    SELECT researcher_b_id AS other, weight FROM graph_coauthoredge WHERE researcher_a_id = c.other
    UNION ALL
    SELECT researcher_a_id, weight FROM graph_coauthoredge WHERE researcher_b_id = c.other
  ) e
  WHERE e.other IN (SELECT id FROM reachable)
  GROUP BY e.other
),
you_cited AS (
  SELECT a.researcher_id AS candidate, count(*) AS n
  FROM my_works m JOIN publications_citation c ON c.citing_id = m.work_id
  JOIN publications_authorship a ON a.work_id = c.cited_id
  WHERE a.researcher_id IN (SELECT id FROM reachable)
  GROUP BY a.researcher_id
),
they_cited AS (
  SELECT a.researcher_id AS candidate, count(*) AS n
  FROM my_works m JOIN publications_citation c ON c.cited_id = m.work_id
  JOIN publications_authorship a ON a.work_id = c.citing_id
  WHERE a.researcher_id IN (SELECT id FROM reachable)
  GROUP BY a.researcher_id
),
my_topics AS MATERIALIZED (
  SELECT wt.topic_id,
         count(*)::float8 / greatest((SELECT count(*) FROM my_works), 1) AS share
  FROM my_works m JOIN publications_worktopic wt ON wt.work_id = m.work_id
  GROUP BY wt.topic_id ORDER BY count(*) DESC, wt.topic_id LIMIT %(topics_compared)s
),
their_topics AS (
  SELECT a.researcher_id AS candidate, wt.topic_id, count(*) AS n
  FROM publications_authorship a JOIN reachable ON reachable.id = a.researcher_id
  JOIN publications_worktopic wt ON wt.work_id = a.work_id
  JOIN my_topics USING (topic_id)
  GROUP BY a.researcher_id, wt.topic_id
),
overlap AS (
  SELECT t.candidate,
         sum(least(m.share, t.n::float8 / all_works.works)) AS overlap,
         (array_agg(t.topic_id ORDER BY least(m.share, t.n::float8 / all_works.works) DESC,
                    t.topic_id))[1] AS top_topic_id
  FROM their_topics t JOIN my_topics m USING (topic_id)
  JOIN (
    SELECT a.researcher_id AS candidate, count(DISTINCT a.work_id) AS works
    FROM publications_authorship a
    WHERE a.researcher_id IN (SELECT DISTINCT candidate FROM their_topics)
    GROUP BY a.researcher_id
  ) all_works USING (candidate)
  GROUP BY t.candidate
),
candidates AS (
  SELECT candidate FROM two_hop
  UNION SELECT candidate FROM you_cited
  UNION SELECT candidate FROM they_cited
  UNION (SELECT candidate FROM overlap ORDER BY overlap DESC, candidate LIMIT %(topic_candidates)s)
  UNION SELECT unnest(%(nearest)s::bigint[])
)
SELECT c.candidate, r.open_to_collaborate,
       coalesce(h.common, 0), coalesce(h.common_weight, 0)::float8,
       coalesce(tc.n, 0), coalesce(yc.n, 0),
       coalesce(o.overlap, 0), coalesce(topic.name, '')
FROM candidates c
JOIN reachable r ON r.id = c.candidate
LEFT JOIN two_hop h ON h.candidate = c.candidate
LEFT JOIN they_cited tc ON tc.candidate = c.candidate
LEFT JOIN you_cited yc ON yc.candidate = c.candidate
LEFT JOIN overlap o ON o.candidate = c.candidate
LEFT JOIN publications_topic topic ON topic.id = o.top_topic_id
WHERE c.candidate NOT IN (SELECT other FROM coauthors)
  AND NOT EXISTS (
    SELECT 1 FROM my_works m JOIN publications_authorship a ON a.work_id = m.work_id
    WHERE a.researcher_id = c.candidate)
"""


@dataclass(frozen=True)
class Suggestion:
    researcher: Researcher
    score: float
    reason: str
    signals: SuggestionSignals


@dataclass
class SuggestionsFor:
    """What the suggestions page and panels show for one user. `record` is None when the user
    holds no approved claim; `claim_pending` then says whether one awaits review."""

    record: Researcher | None
    suggestions: list[Suggestion] = field(default_factory=list)
    claim_pending: bool = False
    messaging_suspended: bool = False


def _nearest_by_meaning(*, record_id: int, user_id: int) -> dict[int, float]:
    """The cosine of R's embedding with each reachable researcher's that has one of the same
    model, for the nearest NEAREST_CANDIDATES (empty when R has none). One query: R's own
    vector comes with the others."""
    with connection.cursor() as cursor:
        cursor.execute(_EMBEDDINGS_SQL, {"record": record_id, "user": user_id})
        rows = cursor.fetchall()
    mine = next((vector for researcher_id, vector in rows if researcher_id == record_id), None)
    others = [
        (researcher_id, vector) for researcher_id, vector in rows if researcher_id != record_id
    ]
    if mine is None or not others:
        return {}
    mine_vector = vector_from_bytes(mine)
    ids = np.array([researcher_id for researcher_id, _ in others])
    cosines = vectors_from_bytes([vector for _, vector in others], len(mine_vector)) @ mine_vector
    order = np.argsort(-cosines, kind="stable")[:NEAREST_CANDIDATES]
    return {int(ids[i]): float(cosines[i]) for i in order}


def suggestion_signals(
    *, record_id: int, user_id: int, nearest: dict[int, float]
) -> list[SuggestionSignals]:
    """The signal rows of every candidate of R (see the module's docstring). One statement."""
    params: dict[str, Any] = {
        "record": record_id,
        "user": user_id,
        "topics_compared": TOPICS_COMPARED,
        "topic_candidates": TOPIC_CANDIDATES,
        "nearest": list(nearest),
    }
    with connection.cursor() as cursor:
        cursor.execute(_SIGNALS_SQL, params)
        rows = cursor.fetchall()
    return [
        SuggestionSignals(
            candidate_id=candidate,
            open_to_collaborate=bool(is_open),
            meaning=nearest.get(candidate),
            common_coauthors=int(common),
            common_coauthor_weight=float(common_weight),
            they_cited_you=int(they_cited),
            you_cited_them=int(you_cited),
            topic_overlap=float(overlap),
            top_topic=topic_name,
        )
        for (
            candidate,
            is_open,
            common,
            common_weight,
            they_cited,
            you_cited,
            overlap,
            topic_name,
        ) in rows
    ]


def _without_conflicts(record: Researcher, ranked: list[RankedSuggestion]) -> list[Researcher]:
    """The short list's records in ranked order, less those in a conflict of interest with R
    (graph's rule) and any that went away meanwhile."""
    by_id = Researcher.objects.only(
        "id",
        "slug",
        "display_name",
        "tagline",
        "open_to_collaborate",
        "claimed_by",
        "merged_into",
        "last_known_institution",
        "verification_level",
    ).in_bulk([record.pk, *(s.candidate_id for s in ranked)])
    kept = [by_id[s.candidate_id] for s in ranked if s.candidate_id in by_id]
    if not kept:
        return []
    # R comes in the same query, with the institution the COI rule reads (the record from
    # verified_record_of defers it).
    report = conflicts_of_interest([by_id.get(record.pk, record), *kept])
    conflicted = set()
    for conflict in report["conflicts"]:
        ids = {int(ref["id"].removeprefix("r:")) for ref in conflict["researchers"]}
        if record.pk in ids:
            conflicted |= ids - {record.pk}
    return [r for r in kept if r.pk not in conflicted]


def suggestions_for(
    user: User | AnonymousUser,
    *,
    limit: int = SUGGESTIONS_LIMIT,
    now: datetime.datetime | None = None,
) -> SuggestionsFor:
    """`user`'s collaborator suggestions (up to `limit`), or why there are none."""
    if not isinstance(user, User):
        return SuggestionsFor(record=None)
    record = verified_record_of(user)
    if record is None:
        pending = Claim.objects.filter(user=user, status=ClaimStatus.PENDING).exists()
        return SuggestionsFor(record=None, claim_pending=pending)
    if messaging_suspended(user.pk):
        return SuggestionsFor(record=record, messaging_suspended=True)
    now = now or timezone.now()
    nearest = _nearest_by_meaning(record_id=record.pk, user_id=user.pk)
    signals = suggestion_signals(record_id=record.pk, user_id=user.pk, nearest=nearest)
    ranked = suggestions_ranked(signals, limit=SHORT_LIST_SIZE)
    by_id = {s.candidate_id: s for s in ranked}
    short_list = _without_conflicts(record, ranked)
    # The one invitation rule, for the whole short list at once (a fixed number of queries).
    refusals = invite_refusals(sender=user, sender_record=record, recipients=short_list, now=now)
    suggestions = [
        Suggestion(
            researcher=researcher,
            score=by_id[researcher.pk].score,
            reason=by_id[researcher.pk].reason,
            signals=by_id[researcher.pk].signals,
        )
        for researcher in short_list
        if refusals[researcher.pk] is None
    ][:limit]
    return SuggestionsFor(record=record, suggestions=suggestions)
