"""Graph slices: a researcher's neighbourhood (close collaborators, works, topics,
institutions) as nodes and edges, built in a fixed number of queries and cached in Redis."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone
from redis import ConnectionError as RedisConnectionError
from redis import TimeoutError as RedisTimeoutError

from bzpeer.db import read_connection
from publications.models import Authorship, Citation, WorkTopic
from researchers.models import Affiliation, Institution, Researcher

from .. import keys
from ..models import CLOSE_SQL, SLICE_SUMMARY_MIN_WORKS
from .close_collaborators import CLOSE_COLLABORATORS_DEFINITION

# Caps per kind, so a slice stays small (and fast) whatever the researcher's record holds.
SLICE_CAPS = {
    "collaborators": 25,
    "recent_works": 8,
    "cited_works": 8,
    "topics": 8,
    "institutions": 6,
    "coauthor_edges_among_collaborators": 60,
    "authored_edges_of_collaborators": 60,
    "citations_among_works": 60,
}

# Each row carries the researcher's own close-collaborators count: it has a row in
# graph_closecollaboratorscount exactly when it has close collaborators (both are written in
# the same transactions), so no row here means a count of 0, and no query of its own.
_COLLABORATORS_SQL = f"""
SELECT r.id, r.slug, r.display_name, r.works_count, ends.joint_works_count, ends.weight,
       ends.first_year, ends.last_year,
       (SELECT c.close_collaborators_count FROM graph_closecollaboratorscount c
        WHERE c.researcher_id = %(id)s) AS close_collaborators_count
FROM (
    SELECT e.researcher_b_id AS other, e.joint_works_count, e.weight, e.first_year, e.last_year
    FROM graph_coauthoredge e WHERE e.researcher_a_id = %(id)s AND {CLOSE_SQL}
    UNION ALL
    SELECT e.researcher_a_id, e.joint_works_count, e.weight, e.first_year, e.last_year
    FROM graph_coauthoredge e WHERE e.researcher_b_id = %(id)s AND {CLOSE_SQL}
    ORDER BY weight DESC, other
    LIMIT %(limit)s
) ends
JOIN researchers_researcher r ON r.id = ends.other
ORDER BY ends.weight DESC, r.id
"""

_EDGES_AMONG_SQL = """
SELECT e.researcher_a_id, e.researcher_b_id, e.joint_works_count, e.weight, e.first_year,
       e.last_year
FROM graph_coauthoredge e
WHERE e.researcher_a_id = ANY(%(ids)s) AND e.researcher_b_id = ANY(%(ids)s)
ORDER BY e.weight DESC
LIMIT %(limit)s
"""

# Recent and most cited works of the researcher, in one pass over their authorships.
_WORKS_SQL = """
WITH mine AS MATERIALIZED (
    SELECT DISTINCT w.id, w.title, w.publication_year, w.publication_date, w.cited_by_count,
           w.type, w.authors_count, w.sort_date
    FROM publications_authorship au JOIN publications_work w ON w.id = au.work_id
    WHERE au.researcher_id = %(id)s
)
(SELECT id, title, publication_year, publication_date, cited_by_count, type, authors_count,
        'recent' AS why
 FROM mine ORDER BY sort_date DESC NULLS LAST, id DESC LIMIT %(recent)s)
UNION ALL
(SELECT id, title, publication_year, publication_date, cited_by_count, type, authors_count,
        'cited' AS why
 FROM mine ORDER BY cited_by_count DESC, id DESC LIMIT %(cited)s)
"""

# Topics by the number of the researcher's works on them. The LATERAL makes it one index probe
# per work whatever the planner believes about the tables' sizes.
_TOPICS_SQL = """
SELECT t.id, t.name, t.code, top.works
FROM (
    SELECT wt.topic_id, count(*) AS works
    FROM (
        SELECT DISTINCT work_id FROM publications_authorship WHERE researcher_id = %(id)s
    ) mine
    CROSS JOIN LATERAL (
        SELECT topic_id FROM publications_worktopic WHERE work_id = mine.work_id
    ) wt
    GROUP BY wt.topic_id
    ORDER BY works DESC, wt.topic_id
    LIMIT %(limit)s
) top
JOIN publications_topic t ON t.id = top.topic_id
ORDER BY top.works DESC, t.id
"""


# The same rows for a record with a SliceSummary (many works): the works and topics it names,
# in its order, read from their own rows. No rows when the record has no summary (yet).
_SUMMARY_WORKS_SQL = """
SELECT w.id, w.title, w.publication_year, w.publication_date, w.cited_by_count, w.type,
       w.authors_count, picked.why
FROM graph_slicesummary s
CROSS JOIN LATERAL (
    SELECT id, 'recent' AS why, n FROM unnest(s.recent_work_ids) WITH ORDINALITY AS r(id, n)
    UNION ALL
    SELECT id, 'cited', cardinality(s.recent_work_ids) + n
    FROM unnest(s.cited_work_ids) WITH ORDINALITY AS c(id, n)
) picked
JOIN publications_work w ON w.id = picked.id
WHERE s.researcher_id = %(id)s
ORDER BY picked.n
"""

_SUMMARY_TOPICS_SQL = """
SELECT t.id, t.name, t.code, picked.works
FROM graph_slicesummary s
CROSS JOIN LATERAL unnest(s.topic_ids, s.topic_works) AS picked(id, works)
JOIN publications_topic t ON t.id = picked.id
WHERE s.researcher_id = %(id)s
ORDER BY picked.works DESC, t.id
"""


def _node(kind: str, pk: int, label: str, url: str, weight: float, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"{kind[0]}:{pk}",
        "type": kind,
        "label": label,
        "url": url,
        "weight": weight,
    } | extra


def _edge(kind: str, source: str, target: str, weight: float, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"{kind}:{source}-{target}",
        "kind": kind,
        "source": source,
        "target": target,
        "weight": weight,
    } | extra


def graph_slice_build(researcher: Researcher) -> dict[str, Any]:
    """The researcher's neighbourhood as nodes and edges, each kind capped (SLICE_CAPS).

    Nodes: the researcher; their close collaborators, strongest first; their most recent and
    most cited works; their main topics; their institutions. Each node has an id ("r:12",
    "w:7", "t:3", "i:5"), a type, a label, a URL and a weight (how strongly it relates to the
    researcher: the coauthor weight, the citations, the number of works on the topic, 1 for a
    current affiliation and 0.5 for a past one).
    Edges: coauthor (weight = coauthor weight, with joint works and years), authored (person to
    work), cites (a work of the slice to another it cites), about (work to topic with the topic
    score; researcher to topic with their works on it) and affiliated (person to institution).
    Eight or nine queries, whatever the record's size: the works and topics of a record with many
    works come from its SliceSummary.
    """
    rid = researcher.id
    center = f"r:{rid}"
    rows = _slice_rows(researcher)
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    _people_add(researcher, rows, nodes, edges)
    works = _works_add(center, rows, nodes, edges)
    _topics_add(center, rows, works, nodes, edges)
    _institutions_add(researcher, rows.people, nodes, edges)
    close_collaborators_count = (rows.collaborators[0][8] or 0) if rows.collaborators else 0
    return {
        "researcher": {
            "id": center,
            "slug": researcher.slug,
            "name": researcher.display_name,
            "close_collaborators_count": close_collaborators_count,
            "works_count": researcher.works_count,
        },
        "nodes": nodes,
        "edges": edges,
        "caps": SLICE_CAPS,
        "close_collaborators_definition": CLOSE_COLLABORATORS_DEFINITION,
    }


@dataclass(frozen=True)
class _SliceRows:
    """What the slice's first statements read: close collaborators (with the researcher's own
    count on each row), the edges among them, the works and the topics."""

    researcher_id: int
    collaborators: list[tuple[Any, ...]]
    among: list[tuple[Any, ...]]
    work_rows: list[tuple[Any, ...]]
    topic_rows: list[tuple[Any, ...]]

    @property
    def people(self) -> list[int]:
        """The researcher's id, then their collaborators', strongest first."""
        return [self.researcher_id] + [row[0] for row in self.collaborators]


def _slice_rows(researcher: Researcher) -> _SliceRows:
    """Four or five statements on the read connection; a record with many works reads its
    works and topics from its SliceSummary."""
    rid = researcher.id
    with read_connection().cursor() as cursor:
        cursor.execute(_COLLABORATORS_SQL, {"id": rid, "limit": SLICE_CAPS["collaborators"]})
        collaborators = cursor.fetchall()
        cursor.execute(
            _EDGES_AMONG_SQL,
            {
                "ids": [row[0] for row in collaborators],
                "limit": SLICE_CAPS["coauthor_edges_among_collaborators"],
            },
        )
        among = cursor.fetchall()
        work_rows = []
        if researcher.works_count >= SLICE_SUMMARY_MIN_WORKS:
            cursor.execute(_SUMMARY_WORKS_SQL, {"id": rid})
            work_rows = cursor.fetchall()
        if work_rows:
            cursor.execute(_SUMMARY_TOPICS_SQL, {"id": rid})
        else:
            cursor.execute(
                _WORKS_SQL,
                {
                    "id": rid,
                    "recent": SLICE_CAPS["recent_works"],
                    "cited": SLICE_CAPS["cited_works"],
                },
            )
            work_rows = cursor.fetchall()
            cursor.execute(_TOPICS_SQL, {"id": rid, "limit": SLICE_CAPS["topics"]})
        topic_rows = cursor.fetchall()
    return _SliceRows(
        researcher_id=rid,
        collaborators=collaborators,
        among=among,
        work_rows=work_rows,
        topic_rows=topic_rows,
    )


def _people_add(
    researcher: Researcher,
    rows: _SliceRows,
    nodes: list[dict[str, Any]],
    edges: list[dict[str, Any]],
) -> None:
    """The researcher, their close collaborators and the coauthor edges among them all."""
    center = f"r:{researcher.id}"
    nodes.append(
        _node(
            "researcher",
            researcher.id,
            researcher.display_name,
            reverse("researcher-profile", args=[researcher.slug]),
            1.0,
            slug=researcher.slug,
            center=True,
            works=researcher.works_count,
        )
    )
    for pk, slug, name, works_count, joint, weight, first, last, _ in rows.collaborators:
        nodes.append(
            _node(
                "researcher",
                pk,
                name,
                reverse("researcher-profile", args=[slug]),
                round(float(weight), 4),
                slug=slug,
                works=works_count,
            )
        )
        edges.append(
            _edge(
                "coauthor",
                center,
                f"r:{pk}",
                round(float(weight), 4),
                joint_works=joint,
                first_year=first,
                last_year=last,
            )
        )
    for a, b, joint, weight, first, last in rows.among:
        edges.append(
            _edge(
                "coauthor",
                f"r:{a}",
                f"r:{b}",
                round(float(weight), 4),
                joint_works=joint,
                first_year=first,
                last_year=last,
            )
        )


_WORK_LINKS_SQL = f"""
(SELECT DISTINCT 'authored', a.researcher_id, a.work_id
 FROM {Authorship._meta.db_table} a
 WHERE a.work_id = ANY(%(works)s) AND a.researcher_id = ANY(%(people)s)
 ORDER BY 3, 2 LIMIT %(authored)s)
UNION ALL
(SELECT 'cites', c.citing_id, c.cited_id
 FROM {Citation._meta.db_table} c
 WHERE c.citing_id = ANY(%(works)s) AND c.cited_id = ANY(%(works)s)
 ORDER BY 2, 3 LIMIT %(cites)s)
"""


def _works_add(
    center: str,
    rows: _SliceRows,
    nodes: list[dict[str, Any]],
    edges: list[dict[str, Any]],
) -> dict[int, dict[str, Any]]:
    """The recent and most cited works (a work in both lists once, with both reasons), who of
    the slice's people authored them and which cite which (one query). Returns the work nodes
    by id."""
    works: dict[int, dict[str, Any]] = {}
    for pk, title, year, _date, cited, work_type, authors, why in rows.work_rows:
        if pk in works:
            works[pk]["why"].append(why)
            continue
        works[pk] = _node(
            "work",
            pk,
            title,
            reverse("publications:work-detail", args=[pk]),
            cited,
            year=year,
            work_type=work_type,
            authors=authors,
            why=[why],
        )
    nodes.extend(works.values())
    for pk in works:
        edges.append(_edge("authored", center, f"w:{pk}", 1.0))
    # Who of the slice's people authored its works, and which of its works cite which: one
    # statement for both.
    collaborators = rows.people[1:]
    if len(works) > 1 or (works and collaborators):
        with read_connection().cursor() as cursor:
            cursor.execute(
                _WORK_LINKS_SQL,
                {
                    "works": list(works),
                    "people": collaborators,
                    "authored": SLICE_CAPS["authored_edges_of_collaborators"],
                    "cites": SLICE_CAPS["citations_among_works"],
                },
            )
            for link, source, target in cursor.fetchall():
                if link == "authored":
                    edges.append(_edge("authored", f"r:{source}", f"w:{target}", 1.0))
                else:
                    edges.append(_edge("cites", f"w:{source}", f"w:{target}", 1.0))
    return works


def _topics_add(
    center: str,
    rows: _SliceRows,
    works: dict[int, dict[str, Any]],
    nodes: list[dict[str, Any]],
    edges: list[dict[str, Any]],
) -> None:
    """The main topics, and which of the slice's works are about them (one query)."""
    topic_ids = [row[0] for row in rows.topic_rows]
    for pk, name, code, count in rows.topic_rows:
        nodes.append(
            _node(
                "topic",
                pk,
                f"{code} {name}".strip() if code and code not in name else name,
                reverse("publications:topic-detail", args=[pk]),
                count,
            )
        )
        edges.append(_edge("about", center, f"t:{pk}", count))
    if works and topic_ids:
        for work_id, topic_id, score in WorkTopic.objects.filter(
            work_id__in=list(works), topic_id__in=topic_ids
        ).values_list("work_id", "topic_id", "score"):
            edges.append(_edge("about", f"w:{work_id}", f"t:{topic_id}", round(score, 4)))


def _institutions_add(
    researcher: Researcher,
    people: list[int],
    nodes: list[dict[str, Any]],
    edges: list[dict[str, Any]],
) -> None:
    """The researcher's institutions (the last known one first when no affiliation names it),
    current weighing 1 and past 0.5, and the collaborators' affiliations to them."""
    rid = researcher.id
    center = f"r:{rid}"
    this_year = timezone.now().year
    affiliations = (
        Affiliation.objects.filter(researcher_id__in=people)
        .select_related("institution")
        .order_by("researcher_id", "-end_year", "-start_year", "id")
    )
    institutions: dict[int, dict[str, Any]] = {}
    own = [a for a in affiliations if a.researcher_id == rid]
    if researcher.last_known_institution_id and not any(
        a.institution_id == researcher.last_known_institution_id for a in own
    ):
        last_known = Institution.objects.filter(id=researcher.last_known_institution_id).first()
        if last_known:
            own.insert(0, Affiliation(researcher_id=rid, institution=last_known, end_year=None))
    for affiliation in own:
        institution = affiliation.institution
        if institution.id in institutions:
            continue
        if len(institutions) >= SLICE_CAPS["institutions"]:
            break
        current = affiliation.end_year is None or affiliation.end_year >= this_year
        institutions[institution.id] = _node(
            "institution",
            institution.id,
            institution.name,
            reverse("institution-detail", args=[institution.id]),
            1.0 if current else 0.5,
            country=institution.country_code,
        )
        edges.append(
            _edge(
                "affiliated",
                center,
                f"i:{institution.id}",
                1.0 if current else 0.5,
                start_year=affiliation.start_year,
                end_year=affiliation.end_year,
            )
        )
    nodes.extend(institutions.values())
    seen = {(e["source"], e["target"]) for e in edges}
    for affiliation in affiliations:
        if affiliation.researcher_id == rid or affiliation.institution_id not in institutions:
            continue
        pair = (f"r:{affiliation.researcher_id}", f"i:{affiliation.institution_id}")
        if pair in seen:
            continue
        seen.add(pair)
        current = affiliation.end_year is None or affiliation.end_year >= this_year
        edges.append(_edge("affiliated", *pair, 1.0 if current else 0.5))


def _slice_key(researcher_id: int) -> str:
    generation, version = keys.redis_client().mget(
        keys.key(keys.SLICE_GENERATION),
        keys.key(keys.SLICE_VERSION.format(id=researcher_id)),
    )
    return keys.SLICE.format(
        generation=_text(generation or b"0"), id=researcher_id, version=_text(version or b"0")
    )


def _text(value: bytes | str) -> str:
    """A Redis reply as text (the client returns bytes unless told to decode)."""
    return value.decode() if isinstance(value, bytes) else value


def graph_slice_for(researcher: Researcher) -> dict[str, Any]:
    """The researcher's graph slice, from the cache when it is still current.

    The version is read before the database, and a change sets a new version only after it
    committed, so a slice computed from data older than a change is never cached under the
    version that follows the change.
    """
    try:
        cache_key = keys.cache_name(_slice_key(researcher.id))
    except (RedisConnectionError, RedisTimeoutError):
        # Redis unreachable: the slice from the database, not cached (issue 29).
        return graph_slice_build(researcher)
    cached = cache.get(cache_key)
    if cached is not None:
        return cached
    graph_slice = graph_slice_build(researcher)
    cache.set(cache_key, graph_slice, keys.SLICE_CACHE_SECONDS)
    return graph_slice
