"""The trust score: a deterministic function of a record's signals, documented in docs/trust.md.

The weights below are the only copy in code; the SQL is built from them, and a test reads the
table in docs/trust.md and checks it gives the stored breakdown. `researchers_trust_refresh`
scores any number of researchers in one statement, so imports can call it per batch.
"""

from __future__ import annotations

import datetime
from collections.abc import Collection
from dataclasses import dataclass
from functools import partial

from django.db import connection, transaction
from django.utils import timezone

from bzpeer.db import retry_on_lock_conflict
from researchers.services import researcher_pages_invalidate

TRUST_VERSION = 1

# Points for the record's verification level (L0 .. L4).
LEVEL_POINTS = {0: 0, 1: 5, 2: 15, 3: 30, 4: 40}
# Persistent identifiers.
OPENALEX_ID_POINTS = 4
ORCID_POINTS = 8
OTHER_ID_POINTS = 1  # each of DBLP, Semantic Scholar, Google Scholar
IDENTIFIERS_CAP = 15
# Works with a DOI.
DOI_WORK_POINTS = 2
DOI_WORKS_CAP = 20
# Distinct coauthors whose own records are verified (L3 or L4), on works of at most
# COAUTHOR_MAX_AUTHORS authors (the collaborator graph's rule: mega-papers add no links).
VERIFIED_COAUTHOR_POINTS = 5
VERIFIED_COAUTHORS_CAP = 15
COAUTHOR_MAX_AUTHORS = 100
# Age of the claimant's account, in full 30-day months (claimed records only).
ACCOUNT_AGE_POINTS_PER_MONTH = 1
ACCOUNT_AGE_CAP = 10
# Each open impersonation dispute.
OPEN_DISPUTE_POINTS = -20

SCORE_MIN, SCORE_MAX = 0, 100


@dataclass(frozen=True)
class TrustComponent:
    key: str
    label: str
    maximum: int
    explanation: str


COMPONENTS = (
    TrustComponent(
        "verification",
        "Verification level",
        LEVEL_POINTS[4],
        "L0 0, L1 5, L2 15, L3 30, L4 40 points.",
    ),
    TrustComponent(
        "identifiers",
        "Persistent identifiers",
        IDENTIFIERS_CAP,
        f"OpenAlex id {OPENALEX_ID_POINTS}, ORCID iD {ORCID_POINTS}, "
        f"each other id {OTHER_ID_POINTS}; at most {IDENTIFIERS_CAP}.",
    ),
    TrustComponent(
        "works_with_doi",
        "Works with a DOI",
        DOI_WORKS_CAP,
        f"{DOI_WORK_POINTS} per work with a DOI; at most {DOI_WORKS_CAP}.",
    ),
    TrustComponent(
        "verified_coauthors",
        "Verified coauthor links",
        VERIFIED_COAUTHORS_CAP,
        f"{VERIFIED_COAUTHOR_POINTS} per distinct coauthor verified at L3 or L4; "
        f"at most {VERIFIED_COAUTHORS_CAP}.",
    ),
    TrustComponent(
        "account_age",
        "Account age",
        ACCOUNT_AGE_CAP,
        f"{ACCOUNT_AGE_POINTS_PER_MONTH} per full 30 days of the claimant's account; "
        f"at most {ACCOUNT_AGE_CAP}. Unclaimed records get 0.",
    ),
    TrustComponent(
        "open_disputes",
        "Open disputes",
        0,
        f"{OPEN_DISPUTE_POINTS} per open impersonation report.",
    ),
)


def trust_band(score: int | None) -> str:
    """The band a trust score falls in, as shown beside it: "Trust 13 - Unverified"."""
    score = score or 0
    if score >= 80:
        return "Highly trusted"
    if score >= 60:
        return "Trusted"
    if score >= 35:
        return "Emerging"
    return "Unverified"


BANDS = (
    (80, 100, "Highly trusted"),
    (60, 79, "Trusted"),
    (35, 59, "Emerging"),
    (0, 34, "Unverified"),
)

_LEVEL_CASE = " ".join(f"WHEN {level} THEN {points}" for level, points in LEVEL_POINTS.items())

_REFRESH_SQL = f"""
WITH target AS (
    SELECT r.id, r.verification_level, r.openalex_id, r.orcid, r.dblp_id,
           r.semantic_scholar_id, r.scholar_id, r.claimed_by_id
    FROM researchers_researcher r
    WHERE r.id = ANY(%(ids)s)
    ORDER BY r.id
    -- The lock order rule (researchers.services.locks): id order, and FOR NO KEY UPDATE, since
    -- a score changes no key. FOR UPDATE also waited for every foreign key check of a row
    -- pointing at these records (FOR KEY SHARE), which closed a deadlock with a committing
    -- invitation that held one record's and waited for another's (issue 24).
    FOR NO KEY UPDATE
),
doi_works AS (
    SELECT a.researcher_id, count(DISTINCT a.work_id) AS n
    FROM publications_authorship a
    JOIN target t ON t.id = a.researcher_id
    JOIN publications_work w ON w.id = a.work_id
    WHERE w.doi IS NOT NULL AND w.doi <> ''
    GROUP BY a.researcher_id
),
verified_coauthors AS (
    SELECT a.researcher_id, count(DISTINCT b.researcher_id) AS n
    FROM publications_authorship a
    JOIN target t ON t.id = a.researcher_id
    JOIN publications_work w ON w.id = a.work_id AND w.authors_count <= {COAUTHOR_MAX_AUTHORS}
    JOIN publications_authorship b
      ON b.work_id = a.work_id AND b.researcher_id IS NOT NULL AND b.researcher_id <> a.researcher_id
    JOIN researchers_researcher c
      ON c.id = b.researcher_id AND c.verification_level >= 3 AND c.merged_into_id IS NULL
    GROUP BY a.researcher_id
),
disputes AS (
    SELECT researcher_id, count(*) AS n
    FROM claims_report
    WHERE status = 'open' AND researcher_id = ANY(%(ids)s)
    GROUP BY researcher_id
),
inputs AS (
    SELECT t.id,
           t.verification_level AS level,
           t.openalex_id IS NOT NULL AS has_openalex,
           t.orcid IS NOT NULL AS has_orcid,
           (t.dblp_id IS NOT NULL)::int + (t.semantic_scholar_id IS NOT NULL)::int
               + (t.scholar_id IS NOT NULL)::int AS other_ids,
           coalesce(dw.n, 0) AS works_with_doi,
           coalesce(vc.n, 0) AS verified_coauthors,
           CASE WHEN u.id IS NULL THEN NULL
                ELSE greatest(0, %(as_of)s::date - (u.date_joined AT TIME ZONE 'UTC')::date)
           END AS account_age_days,
           coalesce(d.n, 0) AS open_disputes
    FROM target t
    LEFT JOIN users_user u ON u.id = t.claimed_by_id
    LEFT JOIN doi_works dw ON dw.researcher_id = t.id
    LEFT JOIN verified_coauthors vc ON vc.researcher_id = t.id
    LEFT JOIN disputes d ON d.researcher_id = t.id
),
points AS (
    SELECT i.*,
           CASE i.level {_LEVEL_CASE} ELSE 0 END AS p_verification,
           least({IDENTIFIERS_CAP},
                 CASE WHEN i.has_openalex THEN {OPENALEX_ID_POINTS} ELSE 0 END
                 + CASE WHEN i.has_orcid THEN {ORCID_POINTS} ELSE 0 END
                 + {OTHER_ID_POINTS} * i.other_ids) AS p_identifiers,
           least({DOI_WORKS_CAP}, {DOI_WORK_POINTS} * i.works_with_doi) AS p_works_with_doi,
           least({VERIFIED_COAUTHORS_CAP}, {VERIFIED_COAUTHOR_POINTS} * i.verified_coauthors)
               AS p_verified_coauthors,
           least({ACCOUNT_AGE_CAP},
                 {ACCOUNT_AGE_POINTS_PER_MONTH} * coalesce(i.account_age_days, 0) / 30)
               AS p_account_age,
           {OPEN_DISPUTE_POINTS} * i.open_disputes AS p_open_disputes
    FROM inputs i
),
scored AS (
    SELECT greatest({SCORE_MIN}, least({SCORE_MAX},
               p.p_verification + p.p_identifiers + p.p_works_with_doi + p.p_verified_coauthors
               + p.p_account_age + p.p_open_disputes)) AS score,
           p.*
    FROM points p
),
fresh AS (
    SELECT s.id, s.score,
           jsonb_build_object(
               'version', {TRUST_VERSION},
               'score', s.score,
               'components', jsonb_build_object(
                   'verification', jsonb_build_object(
                       'input', s.level, 'points', s.p_verification),
                   'identifiers', jsonb_build_object(
                       'input', jsonb_build_object(
                           'openalex', s.has_openalex, 'orcid', s.has_orcid,
                           'other', s.other_ids),
                       'points', s.p_identifiers),
                   'works_with_doi', jsonb_build_object(
                       'input', s.works_with_doi, 'points', s.p_works_with_doi),
                   'verified_coauthors', jsonb_build_object(
                       'input', s.verified_coauthors, 'points', s.p_verified_coauthors),
                   'account_age', jsonb_build_object(
                       'input', s.account_age_days, 'points', s.p_account_age,
                       'as_of', CASE WHEN s.account_age_days IS NULL THEN NULL
                                     ELSE %(as_of)s::text END),
                   'open_disputes', jsonb_build_object(
                       'input', s.open_disputes, 'points', s.p_open_disputes)
               )
           ) AS breakdown
    FROM scored s
)
UPDATE researchers_researcher r
SET trust_score = f.score, trust_breakdown = f.breakdown
FROM fresh f
WHERE r.id = f.id
  AND (r.trust_score, r.trust_breakdown) IS DISTINCT FROM (f.score, f.breakdown)
"""


@retry_on_lock_conflict
def researchers_trust_refresh(
    *, researcher_ids: Collection[int], as_of: datetime.date | None = None
) -> int:
    """Recompute trust_score and trust_breakdown for these researchers, in one statement.

    `as_of` is the day account ages are measured on (today by default), so a given day's
    inputs always give the same score. Rows are locked in id order and FOR NO KEY UPDATE, like
    the metrics refresh (the lock order rule, researchers.services.locks), so it can run inside
    an import batch without deadlocking against another batch, and never waits for the foreign
    key checks of rows written beside it (a follow, an invitation, a byline). Returns
    the number of records whose score or breakdown changed.
    """
    if not researcher_ids:
        return 0
    as_of = as_of or timezone.now().date()
    # Every trust input (claims, disputes, vouches) shows on the profile: its cached page goes.
    transaction.on_commit(partial(researcher_pages_invalidate, researcher_ids=set(researcher_ids)))
    with connection.cursor() as cursor:
        cursor.execute(_REFRESH_SQL, {"ids": sorted(set(researcher_ids)), "as_of": as_of})
        return cursor.rowcount


_COAUTHORS_SQL = f"""
SELECT DISTINCT b.researcher_id
FROM publications_authorship a
JOIN publications_work w ON w.id = a.work_id AND w.authors_count <= {COAUTHOR_MAX_AUTHORS}
JOIN publications_authorship b
  ON b.work_id = a.work_id AND b.researcher_id IS NOT NULL AND b.researcher_id <> a.researcher_id
WHERE a.researcher_id = ANY(%(ids)s)
"""


def coauthor_ids(researcher_ids: Collection[int]) -> set[int]:
    """Ids of every researcher who shares a (not mega-authored) work with one of these."""
    if not researcher_ids:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(_COAUTHORS_SQL, {"ids": sorted(set(researcher_ids))})
        return {row[0] for row in cursor.fetchall()}


def researchers_trust_refresh_with_coauthors(*, researcher_ids: Collection[int]) -> int:
    """researchers_trust_refresh over these records and their coauthors (whose verified-coauthor
    links change when one of these records changes level)."""
    ids = set(researcher_ids) | coauthor_ids(researcher_ids)
    return researchers_trust_refresh(researcher_ids=ids)


def trust_explanation(breakdown: dict) -> list[dict]:
    """The stored breakdown as rows for the "How is this computed?" page."""
    stored = (breakdown or {}).get("components", {})
    rows = []
    for component in COMPONENTS:
        entry = stored.get(component.key, {})
        rows.append(
            {
                "key": component.key,
                "label": component.label,
                "explanation": component.explanation,
                "maximum": component.maximum,
                "points": entry.get("points", 0),
                "input": entry.get("input"),
                "as_of": entry.get("as_of"),
            }
        )
    return rows
