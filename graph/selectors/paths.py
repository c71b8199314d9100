"""How are two researchers connected: the shortest chain of coauthors between them, with
the joint works of each hop."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from bzpeer.db import read_connection
from researchers.models import Researcher

from ..models import MAX_AUTHORS_FOR_EDGES, CoauthorEdge
from .researcher_refs import researcher_ref

MAX_PATH_HOPS = 6
# Researchers a search may reach before it gives up: a hub's neighbourhood two hops out can be
# most of the graph, and the answer has to come back in a page's time.
MAX_PATH_VISITED = 300_000
WORKS_PER_HOP = 5

_NEIGHBOURS_SQL = """
SELECT researcher_a_id, researcher_b_id FROM graph_coauthoredge WHERE researcher_a_id = ANY(%(ids)s)
UNION ALL
SELECT researcher_b_id, researcher_a_id FROM graph_coauthoredge WHERE researcher_b_id = ANY(%(ids)s)
"""

_HOP_WORKS_SQL = f"""
SELECT w.id, w.title, w.publication_year, w.authors_count
FROM publications_work w
WHERE w.authors_count <= {MAX_AUTHORS_FOR_EDGES}
  AND w.id IN (
      SELECT x.work_id FROM publications_authorship x
      JOIN publications_authorship y ON y.work_id = x.work_id
      WHERE x.researcher_id = %(a)s AND y.researcher_id = %(b)s
  )
ORDER BY w.publication_year DESC NULLS LAST, w.id DESC
LIMIT %(limit)s
"""


def _shortest_path_ids(source: int, target: int) -> tuple[list[int] | None, str]:
    """Bidirectional breadth-first search over the coauthor edges, one query per level,
    always widening the smaller side. Returns (ids from source to target, "") or (None, why)."""
    if source == target:
        return [source], ""
    parents = ({source: None}, {target: None})
    frontiers = ([source], [target])
    hops = 0
    while frontiers[0] and frontiers[1] and hops < MAX_PATH_HOPS:
        side = 0 if len(frontiers[0]) <= len(frontiers[1]) else 1
        mine, other = parents[side], parents[1 - side]
        with read_connection().cursor() as cursor:
            cursor.execute(_NEIGHBOURS_SQL, {"ids": frontiers[side]})
            pairs = sorted(cursor.fetchall())
        hops += 1
        next_frontier: list[int] = []
        meeting = None
        for here, there in pairs:
            if there in mine:
                continue
            mine[there] = here
            next_frontier.append(there)
            if there in other and meeting is None:
                meeting = there
        if meeting is not None:
            forward, node = [], meeting
            while node is not None:
                forward.append(node)
                node = parents[0][node]
            forward.reverse()
            node = parents[1][meeting]
            while node is not None:
                forward.append(node)
                node = parents[1][node]
            return forward, ""
        frontiers = (next_frontier, frontiers[1]) if side == 0 else (frontiers[0], next_frontier)
        if len(parents[0]) + len(parents[1]) > MAX_PATH_VISITED:
            return None, f"no path found among the first {MAX_PATH_VISITED:,} researchers reached"
    if hops >= MAX_PATH_HOPS:
        return None, f"no path of at most {MAX_PATH_HOPS} joint-work hops"
    return None, "they are not connected through joint works"


def collaboration_path(source: Researcher, target: Researcher) -> dict[str, Any]:
    """The shortest chain of coauthors from source to target, with the joint works of each hop
    (newest first, at most WORKS_PER_HOP). Coauthor edges count every joint work with at most
    100 authors, close or not. At most MAX_PATH_HOPS hops."""
    ids, reason = _shortest_path_ids(source.id, target.id)
    result: dict[str, Any] = {
        "source": researcher_ref(source),
        "target": researcher_ref(target),
        "found": ids is not None,
        "reason": reason,
        "researchers": [],
        "hops": [],
    }
    if ids is None:
        return result
    people = Researcher.objects.in_bulk(ids)
    result["researchers"] = [researcher_ref(people[i]) for i in ids]
    with read_connection().cursor() as cursor:
        for a, b in zip(ids, ids[1:], strict=False):
            cursor.execute(_HOP_WORKS_SQL, {"a": a, "b": b, "limit": WORKS_PER_HOP})
            works = [
                {
                    "id": f"w:{pk}",
                    "title": title,
                    "year": year,
                    "authors": authors,
                    "url": reverse("publications:work-detail", args=[pk]),
                }
                for pk, title, year, authors in cursor.fetchall()
            ]
            low, high = min(a, b), max(a, b)
            edge = CoauthorEdge.objects.filter(researcher_a_id=low, researcher_b_id=high).first()
            result["hops"].append(
                {
                    "source": f"r:{a}",
                    "target": f"r:{b}",
                    "joint_works": edge.joint_works_count if edge else len(works),
                    "weight": round(float(edge.weight), 4) if edge else None,
                    "works": works,
                }
            )
    return result
