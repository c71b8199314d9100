"""What hangs off a written work: its byline (authorships), its topics per source, and its
versions (preprint and published). Set-based: one DELETE and one COPY/INSERT per kind."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from typing import Any

from researchers.names import normalize_name

from ..records import OPENALEX, AuthorRef, AuthorshipRecord, TopicRecord, WorkRecord
from .authors import NameMention, researchers_by_orcid, researchers_for_mentions
from .identity import is_publisher_doi, orcid_is_valid
from .staging import Cursor, Warning_, WriteResult, copy_rows, ids_by_key, stage_rows

# Bylines longer than this give the resolver no team (as graph's coauthor edges).
MAX_AUTHORS_FOR_EVIDENCE = 100
PRIMARY_CATEGORY_SCORE = 1.0
OTHER_CATEGORY_SCORE = 0.9


def category_topic(code: str) -> TopicRecord:
    """arXiv's category 'cs.LG' as a topic (level category), shown as its code."""
    return TopicRecord(
        external_id=f"arxiv:{code}"[:64], name=code, level="category", code=code[:32]
    )


_AUTHORSHIP_COLUMNS = [
    ("work_id", "int8"),
    ("researcher_id", "int8"),
    ("position", "int2"),
    ("raw_name", "text"),
    ("is_corresponding", "bool"),
    ("institution_ids", "int8[]"),
    ("affiliation_names", "varchar[]"),
    ("work_created_at", "timestamptz"),
]


def _byline_records(
    records: Sequence[WorkRecord], targets: Sequence[tuple[int, list[int], dict[str, Any]]]
) -> list[tuple[int, WorkRecord]]:
    """(work id, record) for each work whose shown byline comes from a record of this batch."""
    chosen: list[tuple[int, WorkRecord]] = []
    for work_id, indexes, merged in targets:
        for index in indexes:
            record = records[index]
            if (record.origin, record.origin_key) == (
                merged["byline_origin"],
                merged["byline_origin_id"],
            ):
                chosen.append((work_id, record))
                break
    return chosen


def _mention(
    work_id: int,
    r: WorkRecord,
    a: AuthorshipRecord,
    author: AuthorRef,
    *,
    resolved_ids: frozenset[int],
    topic_keys: frozenset[str],
) -> NameMention:
    """The name of a byline slot with no identifier, with what the byline says around it."""
    name = author.display_name or a.raw_name
    return NameMention(
        r.origin,
        r.origin_key[:400],
        normalize_name(name)[:500],
        name,
        given_name=author.given_name,
        family_name=author.family_name,
        dblp=author.dblp,
        coauthor_ids=resolved_ids,
        institution_openalex_ids=frozenset(i.openalex_id for i in a.institutions),
        affiliation_names=a.affiliation_names,
        work_id=work_id,
        coauthor_names=tuple(
            other.author.display_name or other.raw_name
            if other.author is not None
            else other.raw_name
            for other in r.authorships
            if other.position != a.position
        )
        if len(r.authorships) <= MAX_AUTHORS_FOR_EVIDENCE
        else (),
        topic_keys=topic_keys,
    )


def _name_mentions(
    chosen: Sequence[tuple[int, WorkRecord]],
    *,
    openalex_researcher_ids: dict[str, int],
    by_orcid: dict[str, int],
    result: WriteResult,
) -> dict[tuple[int, int], NameMention]:
    """The slots of non-OpenAlex bylines that carry no usable identifier, by (work id,
    position), for the name resolver; an ORCID iD failing its checksum gets a warning."""
    mentions: dict[tuple[int, int], NameMention] = {}
    for work_id, r in chosen:
        # The byline's identified authors: the name resolver's evidence (writer/resolver.py).
        resolved_ids = frozenset(
            rid
            for a in r.authorships
            if a.author is not None
            and (
                rid := openalex_researcher_ids.get(a.author.openalex_id or "")
                or by_orcid.get(a.author.orcid or "")
            )
        )
        topic_keys = frozenset(
            [wt.topic.external_id for wt in r.topics]
            + [category_topic(code).external_id for code in r.categories]
        )
        for a in r.authorships:
            author = a.author
            if r.origin == OPENALEX or author is None or author.openalex_id:
                continue
            if author.orcid and orcid_is_valid(author.orcid):
                continue
            if author.orcid:
                result.warnings.append(
                    Warning_(
                        f"{r.origin}:{r.origin_key}"[:64],
                        f"ORCID iD {author.orcid} of {a.raw_name!r} fails its checksum; ignored",
                    )
                )
            mentions[(work_id, a.position)] = _mention(
                work_id, r, a, author, resolved_ids=resolved_ids, topic_keys=topic_keys
            )
    return mentions


def _authorship_rows(
    chosen: Sequence[tuple[int, WorkRecord]],
    *,
    researcher_of: Callable[[int, AuthorshipRecord], int | None],
    institution_ids: dict[str, int],
    arrivals: dict[int, Any],
    unlinked: set[int],
    result: WriteResult,
) -> list[tuple[Any, ...]]:
    """The new authorship rows, in _AUTHORSHIP_COLUMNS order; each researcher linked is touched
    and no longer unlinked."""
    rows = []
    for work_id, r in chosen:
        for a in r.authorships:
            researcher_id = researcher_of(work_id, a)
            if researcher_id:
                result.touched_researcher_ids.add(researcher_id)
                unlinked.discard(researcher_id)
            rows.append(
                (
                    work_id,
                    researcher_id,
                    a.position,
                    a.raw_name[:500],
                    a.is_corresponding,
                    [
                        institution_ids[i.openalex_id]
                        for i in a.institutions
                        if i.openalex_id in institution_ids
                    ],
                    [name[:500] for name in a.affiliation_names],
                    arrivals[work_id],
                )
            )
    return rows


def write_bylines(
    cursor: Cursor,
    records: Sequence[WorkRecord],
    *,
    targets: Sequence[tuple[int, list[int], dict[str, Any]]],
    arrivals: dict[int, Any],
    openalex_researcher_ids: dict[str, int],
    result: WriteResult,
) -> None:
    """Replace the byline of each work whose shown byline (merge.py: byline_origin) comes from a
    record of this batch. targets: (work id, the batch's record indexes, merged fields).

    Its steps run in order on one cursor: choose each work's byline record, delete the old
    bylines, resolve the authors (OpenAlex id, ORCID iD, else the name), copy the new rows.
    """
    chosen = _byline_records(records, targets)
    if not chosen:
        return
    cursor.execute(
        "DELETE FROM publications_authorship WHERE work_id = ANY(%s) RETURNING researcher_id",
        [[work_id for work_id, _ in chosen]],
    )
    unlinked = {rid for (rid,) in cursor.fetchall() if rid}
    result.touched_researcher_ids.update(unlinked)

    orcid_authors = [
        a.author
        for _, r in chosen
        for a in r.authorships
        if a.author
        and not a.author.openalex_id
        and a.author.orcid
        and orcid_is_valid(a.author.orcid)
    ]
    by_orcid = researchers_by_orcid(cursor, orcid_authors)
    mentions = _name_mentions(
        chosen, openalex_researcher_ids=openalex_researcher_ids, by_orcid=by_orcid, result=result
    )
    by_mention = researchers_for_mentions(cursor, list(mentions.values()))
    institution_ids = ids_by_key(
        cursor,
        "researchers_institution",
        "openalex_id",
        {i.openalex_id for _, r in chosen for a in r.authorships for i in a.institutions},
    )

    def researcher_of(work_id: int, a: AuthorshipRecord) -> int | None:
        author = a.author
        if author is not None:
            if author.openalex_id:
                return openalex_researcher_ids.get(author.openalex_id)
            if author.orcid and author.orcid in by_orcid:
                return by_orcid[author.orcid]
            if (work_id, a.position) in mentions:
                return by_mention.get(mentions[(work_id, a.position)])
        return None

    rows = _authorship_rows(
        chosen,
        researcher_of=researcher_of,
        institution_ids=institution_ids,
        arrivals=arrivals,
        unlinked=unlinked,
        result=result,
    )
    result.unlinked_researcher_ids |= unlinked
    copy_rows(cursor, "publications_authorship", _AUTHORSHIP_COLUMNS, rows)


def write_work_topics(
    cursor: Cursor,
    records: Sequence[WorkRecord],
    *,
    work_of: dict[int, int],
    arrivals: dict[int, Any],
) -> None:
    """Each written record's topics replace the topics its source gave the work before; other
    sources' topics stay. A topic two sources give is kept once."""
    cursor.execute(
        """
        DELETE FROM publications_worktopic t
        USING unnest(%s::int8[], %s::text[]) AS k(work_id, origin)
        WHERE t.work_id = k.work_id AND t.origin = k.origin
        """,
        [list(work_of.values()), [records[i].origin for i in work_of]],
    )
    scores: dict[tuple[int, str], tuple[float, str]] = {}
    for index, work_id in work_of.items():
        record = records[index]
        for wt in record.topics:
            scores.setdefault((work_id, wt.topic.external_id), (wt.score, record.origin))
        # The primary category (a record lists it first) scores above the others, so listings
        # show it as the work's primary category (publications.display.work_categories).
        for rank, code in enumerate(record.categories):
            score = PRIMARY_CATEGORY_SCORE if rank == 0 else OTHER_CATEGORY_SCORE
            scores.setdefault((work_id, category_topic(code).external_id), (score, record.origin))
    if not scores:
        return
    topic_ids = ids_by_key(cursor, "publications_topic", "external_id", {key for _, key in scores})
    stage_rows(
        cursor,
        "stage_work_topic",
        [
            ("work_id", "int8"),
            ("topic_id", "int8"),
            ("score", "float8"),
            ("origin", "text"),
            ("work_created_at", "timestamptz"),
        ],
        [
            (work_id, topic_ids[key], score, origin, arrivals[work_id])
            for (work_id, key), (score, origin) in scores.items()
            if key in topic_ids
        ],
    )
    cursor.execute(
        """
        INSERT INTO publications_worktopic (work_id, topic_id, score, origin, work_created_at)
        SELECT work_id, topic_id, score, origin, work_created_at FROM stage_work_topic
        ORDER BY work_id, topic_id
        ON CONFLICT (work_id, topic_id) DO NOTHING
        """
    )


def write_versions(cursor: Cursor, works: Sequence[tuple[int, dict[str, Any]]]) -> None:
    """A work with an arXiv id has a preprint version (first and latest revision) and, when it
    has a publisher's DOI, a published one. Rewritten for every work the batch wrote."""
    cursor.execute(
        "DELETE FROM publications_workversion WHERE work_id = ANY(%s)",
        [[work_id for work_id, _ in works]],
    )
    rows = []
    for work_id, merged in works:
        if not merged["arxiv_id"]:
            continue
        versions = merged["versions"] or []
        first = versions[0] if versions else ["", None, ""]
        latest = versions[-1] if versions else ["", None, ""]
        rows.append(
            (
                work_id,
                "preprint",
                merged["arxiv_id"],
                first[0][:10],
                latest[0][:10],
                _date(first[1]),
                _date(latest[1]),
            )
        )
        if is_publisher_doi(merged["doi"]):
            rows.append(
                (
                    work_id,
                    "published",
                    merged["doi"],
                    "",
                    "",
                    _date(merged["publication_date"]),
                    None,
                )
            )
    if rows:
        copy_rows(
            cursor,
            "publications_workversion",
            [
                ("work_id", "int8"),
                ("kind", "text"),
                ("identifier", "text"),
                ("first_label", "text"),
                ("latest_label", "text"),
                ("first_date", "date"),
                ("latest_date", "date"),
            ],
            rows,
        )


def _date(value: str | None) -> datetime.date | None:
    try:
        return datetime.date.fromisoformat(value) if value else None
    except ValueError:
        return None
