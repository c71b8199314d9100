"""Works, with their bylines (authorships) and topics, and everything they reference."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import orjson

from ..records import (
    AuthorRef,
    InstitutionRef,
    SourceRecord,
    TopicRecord,
    WorkRecord,
    content_hash,
)
from .institutions import upsert_institution_refs
from .researchers import upsert_researcher_refs
from .sources import upsert_source_refs
from .staging import (
    Column,
    Cursor,
    UniqueIdentifier,
    UpsertTable,
    Warning_,
    WriteResult,
    copy_rows,
    ids_by_key,
    stage_and_upsert,
)
from .topics import upsert_topic_refs

_WORKS = UpsertTable(
    table="publications_work",
    stage="stage_work",
    staged=[
        ("openalex_id", "text"),
        ("doi", "text"),
        ("arxiv_id", "text"),
        ("title", "text"),
        ("abstract", "text"),
        ("type", "text"),
        ("publication_date", "date"),
        ("publication_year", "int"),
        ("source_openalex_id", "text"),
        ("cited_by_count", "int"),
        ("counts_by_year", "text"),
        ("open_access_url", "text"),
        ("code_url", "text"),
        ("language", "text"),
        ("authors_count", "int"),
        ("content_hash", "text"),
        ("source_updated_at", "timestamptz"),
    ],
    columns=[
        Column("doi"),
        Column("arxiv_id"),
        Column("title"),
        Column("abstract"),
        Column("type"),
        Column("publication_date"),
        Column("publication_year"),
        Column("source_id", "src.id"),
        Column("cited_by_count"),
        Column("counts_by_year", "s.counts_by_year::jsonb"),
        Column("open_access_url"),
        Column("code_url"),
        Column("language"),
        Column("authors_count"),
    ],
    joins="LEFT JOIN publications_source src ON src.openalex_id = s.source_openalex_id",
    # Identifiers held by a different work already in the database: import without them.
    unique_identifiers=[
        UniqueIdentifier(key, "{column} {value} already belongs to {holder}; imported without it")
        for key in ("doi", "arxiv_id")
    ],
    # created_at: the work's arrival, copied onto its authorships and topics for the feed; an
    # update returns the row's first created_at, which the upsert never changes.
    returning=["id", "openalex_id", "created_at"],
)


def _unique_identifiers(
    records: Sequence[WorkRecord], warnings: list[Warning_]
) -> dict[str, dict[str, str | None]]:
    """DOIs and arXiv ids must be unique; when two works of one batch share one, the first keeps it."""
    seen: dict[str, dict[str, str]] = {"doi": {}, "arxiv_id": {}}
    kept: dict[str, dict[str, str | None]] = {}
    for record in records:
        kept[record.openalex_id] = {}
        for key in ("doi", "arxiv_id"):
            value = getattr(record, key)
            holder = seen[key].get(value) if value else None
            if holder:
                warnings.append(
                    Warning_(
                        record.openalex_id,
                        f"{key} {value} is also on {holder} in this batch; imported without it",
                    )
                )
                value = None
            elif value:
                seen[key][value] = record.openalex_id
            kept[record.openalex_id][key] = value
    return kept


@dataclass
class PreparedWorks:
    """What write_works computes from the records alone, before it touches the database.

    Pure Python and most of the writer's own work (content hashes, staged rows), so a caller can
    compute it ahead of the batch's transaction: imports.parsing does, in the thread that
    reads and parses the next batch. The referenced entities are listed once each, the last
    copy of each kept, as the upsert_*_refs functions would.
    """

    sources: list[SourceRecord]
    institutions: list[InstitutionRef]
    topics: list[TopicRecord]
    authors: list[AuthorRef]
    identifier_warnings: list[Warning_]
    work_rows: list[tuple[object, ...]]


def prepare_works(records: Sequence[WorkRecord]) -> PreparedWorks:
    identifier_warnings: list[Warning_] = []
    identifiers = _unique_identifiers(records, identifier_warnings)
    return PreparedWorks(
        sources=list({r.source.openalex_id: r.source for r in records if r.source}.values()),
        institutions=list(
            {
                i.openalex_id: i
                for r in records
                for a in r.authorships
                for i in a.institutions
                if i.name
            }.values()
        ),
        topics=list(
            {
                t.external_id: t
                for r in records
                for wt in r.topics
                for t in (*wt.ancestors, wt.topic)
            }.values()
        ),
        authors=list(
            {
                a.author.openalex_id: a.author for r in records for a in r.authorships if a.author
            }.values()
        ),
        identifier_warnings=identifier_warnings,
        # In the order of _WORKS.staged.
        work_rows=[
            (
                r.openalex_id,
                identifiers[r.openalex_id]["doi"],
                identifiers[r.openalex_id]["arxiv_id"],
                r.title,
                r.abstract,
                r.type[:40],
                r.publication_date,
                r.publication_year,
                r.source.openalex_id if r.source else None,
                r.cited_by_count,
                orjson.dumps({str(year): count for year, count in r.counts_by_year}).decode(),
                r.open_access_url,
                r.code_url,
                r.language,
                len(r.authorships),
                content_hash(r),
                r.source_updated_at,
            )
            for r in records
        ],
    )


def write_works(
    cursor: Cursor, records: Sequence[WorkRecord], prepared: PreparedWorks | None = None
) -> WriteResult:
    """Upsert works and what they reference. `prepared` is prepare_works(records), when the
    caller computed it already."""
    if prepared is None:
        prepared = prepare_works(records)
    result = WriteResult()
    upsert_source_refs(cursor, prepared.sources)
    upsert_institution_refs(cursor, prepared.institutions)
    upsert_topic_refs(cursor, prepared.topics)
    researcher_ids = upsert_researcher_refs(cursor, prepared.authors)

    result.warnings.extend(prepared.identifier_warnings)
    changed = stage_and_upsert(cursor, _WORKS, prepared.work_rows, result)
    if not changed:
        return result

    updated_ids = [work_id for work_id, _, _, is_new in changed if not is_new]
    changed_openalex_ids = {openalex_id for _, openalex_id, _, _ in changed}
    if updated_ids:
        # An updated work gets its byline replaced, so removed authors lose it too.
        cursor.execute(
            "DELETE FROM publications_authorship WHERE work_id = ANY(%s) RETURNING researcher_id",
            [updated_ids],
        )
        unlinked = {rid for (rid,) in cursor.fetchall() if rid}
        result.touched_researcher_ids.update(unlinked)
        cursor.execute("DELETE FROM publications_worktopic WHERE work_id = ANY(%s)", [updated_ids])
    else:
        unlinked = set()

    changed_records = [r for r in records if r.openalex_id in changed_openalex_ids]
    work_ids = {openalex_id: work_id for work_id, openalex_id, _, _ in changed}
    arrivals = {work_id: created_at for work_id, _, created_at, _ in changed}
    _write_authorships(
        cursor, changed_records, work_ids, arrivals, researcher_ids, unlinked, result
    )
    _write_work_topics(cursor, changed_records, work_ids, arrivals)
    return result


def _write_authorships(
    cursor: Cursor,
    records: Sequence[WorkRecord],
    work_ids: dict[str, int],
    arrivals: dict[int, datetime],
    researcher_ids: dict[str, int],
    unlinked: set[int],
    result: WriteResult,
) -> None:
    """COPY the bylines of works that have none in the database (new, or just emptied).

    `unlinked` holds the researchers the emptied bylines named; those named again are taken
    out of it, and what is left becomes result.unlinked_researcher_ids.
    """
    # Ids are resolved here, once per entity kind, so the rows go straight into their tables.
    institution_ids = ids_by_key(
        cursor,
        "researchers_institution",
        "openalex_id",
        {i.openalex_id for r in records for a in r.authorships for i in a.institutions},
    )
    authorship_rows = []
    for r in records:
        work_id = work_ids[r.openalex_id]
        for a in r.authorships:
            researcher_id = researcher_ids.get(a.author.openalex_id) if a.author else None
            if researcher_id:
                result.touched_researcher_ids.add(researcher_id)
                unlinked.discard(researcher_id)
            authorship_rows.append(
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
                    arrivals[work_id],
                )
            )
    result.unlinked_researcher_ids = unlinked
    copy_rows(
        cursor,
        "publications_authorship",
        [
            ("work_id", "int8"),
            ("researcher_id", "int8"),
            ("position", "int2"),
            ("raw_name", "text"),
            ("is_corresponding", "bool"),
            ("institution_ids", "int8[]"),
            ("work_created_at", "timestamptz"),
        ],
        authorship_rows,
    )


def _write_work_topics(
    cursor: Cursor,
    records: Sequence[WorkRecord],
    work_ids: dict[str, int],
    arrivals: dict[int, datetime],
) -> None:
    """COPY the topics of works that have none in the database (new, or just emptied)."""
    topic_ids = ids_by_key(
        cursor,
        "publications_topic",
        "external_id",
        {wt.topic.external_id for r in records for wt in r.topics},
    )
    # One row per (work, topic): a topic listed twice on a work keeps its first score.
    work_topic_scores: dict[tuple[int, int], float] = {}
    for r in records:
        for wt in r.topics:
            if wt.topic.external_id in topic_ids:
                work_topic_scores.setdefault(
                    (work_ids[r.openalex_id], topic_ids[wt.topic.external_id]), wt.score
                )
    copy_rows(
        cursor,
        "publications_worktopic",
        [
            ("work_id", "int8"),
            ("topic_id", "int8"),
            ("score", "float8"),
            ("work_created_at", "timestamptz"),
        ],
        [
            (work_id, topic_id, score, arrivals[work_id])
            for (work_id, topic_id), score in work_topic_scores.items()
        ],
    )
