"""The candidates' works, for evidence.candidates_for: row by row (CandidateWork), or taken
together by the database (WorksDigest) for the works no mention of the batch can leave out.

A pair's features leave out the mention's own work and the other copies of the same paper
(features.left_out: the works of its id or its title key). Which works those can be is known
before the works are read: the batch's works and title keys, and those of its L0 candidates'
works (clusters.py compares each L0 byline with the identified candidates, leaving it out the
same way, and merges those works into them). Those works ("left-outable") come row by row, as
do every work of an L0 candidate (clusters.py reads them one by one); the identified
candidates' other works come as one digest each: the coauthors' names, ids, topics and so on,
each distinct value once. The summaries are then the same as from every row (features._summary
adds a digest to its rows), but the database sends each candidate's team once rather than once
per work, and Python loops over a few rows instead of every work: on resolver_bench these rows
and their loop were most of a batch (bench/README.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .features import CandidateWork, Cursor, MentionContext, WorksDigest

# Bylines longer than this are no evidence of who works with whom (as graph's coauthor edges).
MAX_AUTHORS_FOR_EVIDENCE = 100

# The works of the L0 candidates: left-outable for their L0 bylines' comparisons (clusters.py).
_L0_WORKS = """
    unplaced_works AS MATERIALIZED (
        SELECT u.work_id, uw.title_key
        FROM publications_authorship u
        JOIN publications_work uw ON uw.id = u.work_id
        WHERE u.researcher_id = ANY(%(unplaced)s)
    )"""
# Whether a candidate's work (a, w) may be left out of some pair of the batch. NULLs (no title
# key) count as false, so NOT of it is safe; a work counted in when it need not be only costs
# a row.
_LEFT_OUTABLE = """coalesce(
        a.work_id = ANY(%(work_ids)s) OR w.title_key = ANY(%(title_keys)s)
        OR a.work_id IN (SELECT work_id FROM unplaced_works)
        OR w.title_key IN (SELECT title_key FROM unplaced_works WHERE title_key <> ''),
        false)"""

_ROWS_SQL = """
{with_clause}
SELECT a.researcher_id, a.work_id, w.publication_year, w.source_id, a.institution_ids,
       a.affiliation_names, o.ids, o.names, a.raw_name, w.title_key,
       ARRAY(SELECT t.external_id FROM publications_worktopic wt
             JOIN publications_topic t ON t.id = wt.topic_id
             WHERE wt.work_id = a.work_id)
FROM publications_authorship a
JOIN publications_work w ON w.id = a.work_id
LEFT JOIN LATERAL (
    SELECT array_agg(b.researcher_id) FILTER (WHERE b.researcher_id IS NOT NULL) AS ids,
           array_agg(b.raw_name) AS names
    FROM publications_authorship b
    WHERE b.work_id = a.work_id AND b.position <> a.position
      AND w.authors_count <= %(max_authors)s
) o ON true
WHERE a.researcher_id = ANY(%(ids)s) AND {which}
"""

# One row per identified candidate: its works that are not left-outable, taken together. Each
# aggregate reads the candidate's works (cw, materialised once) or their coauthors (co). The
# coauthors and topics are read work by work through their indexes (OFFSET 0 keeps each
# lateral apart: joined as a whole, the planner, expecting few rows of cw, hashed the whole
# authorship table). The coauthors are not made distinct here: a candidate's works rarely
# name one coauthor twice on the bench corpus, and DISTINCT over them spilled to disk (a
# frozenset in Python does it).
_DIGEST_SQL = """
WITH {l0_works},
cw AS MATERIALIZED (
    SELECT a.researcher_id, a.work_id, a.position, a.institution_ids, a.affiliation_names,
           coalesce(a.raw_name, '') AS raw_name, w.publication_year AS year, w.source_id,
           w.authors_count
    FROM publications_authorship a
    JOIN publications_work w ON w.id = a.work_id
    WHERE a.researcher_id = ANY(%(ids)s) AND NOT {left_outable}
),
co AS MATERIALIZED (
    SELECT cw.researcher_id, b.researcher_id AS coauthor_id, b.raw_name
    FROM cw
    CROSS JOIN LATERAL (
        SELECT b.researcher_id, b.raw_name FROM publications_authorship b
        WHERE b.work_id = cw.work_id AND b.position <> cw.position OFFSET 0
    ) b
    WHERE cw.authors_count <= %(max_authors)s
)
SELECT r.researcher_id, d.works, d.first_year, d.last_year, d.spellings, v.venues, v.counts,
       i.ids, f.names, c.ids, c.names, t.keys, af.institutions, af.domains
FROM unnest(%(all_ids)s::bigint[]) AS r(researcher_id)
LEFT JOIN (
    SELECT researcher_id, count(DISTINCT work_id) AS works,
           min(year) FILTER (WHERE year <> 0) AS first_year,
           max(year) FILTER (WHERE year <> 0) AS last_year,
           array_agg(DISTINCT raw_name) AS spellings
    FROM cw GROUP BY researcher_id
) d USING (researcher_id)
LEFT JOIN (
    SELECT researcher_id, array_agg(source_id) AS venues, array_agg(works) AS counts
    FROM (SELECT researcher_id, source_id, count(DISTINCT work_id) AS works
          FROM cw GROUP BY researcher_id, source_id) per_venue
    GROUP BY researcher_id
) v USING (researcher_id)
LEFT JOIN (
    SELECT researcher_id, array_agg(DISTINCT i) AS ids
    FROM cw, unnest(cw.institution_ids) AS i GROUP BY researcher_id
) i USING (researcher_id)
LEFT JOIN (
    SELECT researcher_id, array_agg(DISTINCT n) AS names
    FROM cw, unnest(cw.affiliation_names) AS n GROUP BY researcher_id
) f USING (researcher_id)
LEFT JOIN (
    SELECT researcher_id, array_agg(coauthor_id) FILTER (WHERE coauthor_id IS NOT NULL) AS ids,
           array_agg(raw_name) AS names
    FROM co GROUP BY researcher_id
) c USING (researcher_id)
LEFT JOIN (
    SELECT cw.researcher_id, array_agg(DISTINCT t.external_id) AS keys
    FROM cw
    CROSS JOIN LATERAL (
        SELECT wt.topic_id FROM publications_worktopic wt WHERE wt.work_id = cw.work_id
        OFFSET 0
    ) wt
    JOIN publications_topic t ON t.id = wt.topic_id
    GROUP BY cw.researcher_id
) t USING (researcher_id)
LEFT JOIN (
    SELECT f.researcher_id, array_agg(DISTINCT f.institution_id) AS institutions,
           array_agg(DISTINCT e) FILTER (WHERE e IS NOT NULL) AS domains
    FROM researchers_affiliation f
    JOIN researchers_institution inst ON inst.id = f.institution_id
    LEFT JOIN LATERAL unnest(inst.email_domains) AS e ON true
    WHERE f.researcher_id = ANY(%(all_ids)s)
    GROUP BY f.researcher_id
) af USING (researcher_id)
"""


def _parameters(
    ids: list[int], unplaced: list[int], mentions: Sequence[MentionContext]
) -> dict[str, Any]:
    return {
        "ids": ids,
        "unplaced": unplaced,
        "work_ids": sorted({m.work_id for m in mentions if m.work_id is not None}),
        "title_keys": sorted({m.title_key for m in mentions if m.title_key}),
        "max_authors": MAX_AUTHORS_FOR_EVIDENCE,
    }


def work_rows(
    cursor: Cursor,
    ids: list[int],
    *,
    unplaced: list[int] | None = None,
    mentions: Sequence[MentionContext] | None = None,
) -> dict[int, dict[int, CandidateWork]]:
    """One CandidateWork per (candidate, work): every work of `ids` when mentions is None;
    else the works of the unplaced (L0) candidates and the left-outable works of the others."""
    if mentions is None:
        sql = _ROWS_SQL.format(with_clause="", which="true")
        params: dict[str, Any] = {"ids": ids, "max_authors": MAX_AUTHORS_FOR_EVIDENCE}
    else:
        which = f"(a.researcher_id = ANY(%(unplaced)s) OR {_LEFT_OUTABLE})"
        sql = _ROWS_SQL.format(with_clause="WITH" + _L0_WORKS, which=which)
        params = _parameters(ids, unplaced or [], mentions)
    cursor.execute(sql, params)
    works: dict[int, dict[int, CandidateWork]] = defaultdict(dict)
    for (
        rid,
        work_id,
        year,
        venue,
        institutions,
        affiliations,
        co_ids,
        co_names,
        raw_name,
        title_key,
        topics,
    ) in cursor.fetchall():
        works[rid][work_id] = CandidateWork(
            year=year,
            venue_id=venue,
            institution_ids=frozenset(institutions or ()),
            affiliation_names=tuple(affiliations or ()),
            coauthor_ids=frozenset(co_ids or ()),
            coauthor_names=tuple(co_names or ()),
            topic_keys=frozenset(topics or ()),
            raw_name=raw_name or "",
            title_key=title_key,
        )
    return works


@dataclass
class Digested:
    """What the digest statement returns: the identified candidates' digests, and every
    candidate's affiliations (researchers_affiliation) with their institutions' email domains
    (folded into the same statement: the resolver's statements stay five a batch)."""

    digests: dict[int, WorksDigest] = field(default_factory=dict)
    institutions: dict[int, set[int]] = field(default_factory=dict)
    domains: dict[int, set[str]] = field(default_factory=dict)


def digests(
    cursor: Cursor,
    ids: list[int],
    unplaced: list[int],
    mentions: Sequence[MentionContext],
) -> Digested:
    """The works of the identified candidates that are not left-outable, one digest per
    candidate (candidates without such works, and unplaced ones, have none); the affiliations
    of all of them (ids: every candidate, unplaced among them)."""
    placed = sorted(set(ids) - set(unplaced))
    cursor.execute(
        _DIGEST_SQL.format(l0_works=_L0_WORKS, left_outable=_LEFT_OUTABLE),
        {**_parameters(placed, unplaced, mentions), "all_ids": ids},
    )
    found = Digested()
    for (
        rid,
        works,
        first_year,
        last_year,
        spellings,
        venues,
        counts,
        institutions,
        affiliations,
        co_ids,
        co_names,
        topics,
        affiliated,
        domains,
    ) in cursor.fetchall():
        if affiliated:
            found.institutions[rid] = set(affiliated)
            found.domains[rid] = {d.lower() for d in domains or ()}
        if works is None:  # no digest: unplaced, or every work left-outable
            continue
        found.digests[rid] = WorksDigest(
            works=works,
            coauthor_ids=frozenset(co_ids or ()),
            coauthor_names=frozenset(co_names or ()),
            institution_ids=frozenset(institutions or ()),
            affiliation_names=frozenset(affiliations or ()),
            topic_keys=frozenset(topics or ()),
            years=tuple(y for y in (first_year, last_year) if y is not None),
            venues=tuple(zip(venues or (), counts or (), strict=True)),
            spellings=frozenset(spellings or ()),
        )
    return found
