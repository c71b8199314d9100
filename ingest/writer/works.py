"""Works from any source: one work per real work, each source's contribution kept with its
origin (WorkSource), the work's fields merged by precedence (merge.py), set-based throughout.

A batch of WorkRecords is written in a fixed number of statements, whatever its size:
1. the referenced venues, institutions, topics and OpenAlex authors are upserted;
2. the batch's source records are looked up in WorkSource (one query): an unchanged content
   hash, or an older copy of the record, costs nothing more;
3. the others find their work (one query over openalex_id, DOI, arXiv id and title key,
   identity.py): a source record seen before keeps its work; an OpenAlex record its W id;
   then DOI, arXiv id, and, for a record with neither, the title key. Records of one batch that
   share a key become one work; a record whose keys lead to two works unites them (targets.py,
   absorb.py: the survivor absorbs the other before it is written);
4. each touched work is merged from every source's contribution (the stored ones in one query)
   and written (new works inserted with ids drawn first, changed ones updated by id);
5. WorkSource rows are upserted; bylines, topics and versions follow (bylines.py).

Preconditions: the caller holds a transaction (the staging tables drop on commit).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..records import (
    OPENALEX,
    AuthorRef,
    InstitutionRef,
    SourceRecord,
    TopicRecord,
    WorkRecord,
    content_hash,
)
from .absorb import absorb_works, bylines_unite
from .bylines import category_topic, write_bylines, write_versions, write_work_topics
from .citations import citations_resolve_arrived, write_citations
from .institutions import upsert_institution_refs
from .listed_by import apply_listed_by
from .merge import Contribution, contribution_fields, merged_work
from .refusals import refusals_apply, work_author_refusals
from .researchers import upsert_researcher_refs
from .sources import upsert_source_refs, upsert_venue_refs
from .staging import Cursor, Warning_, WriteResult, ids_by_key, stage_rows
from .targets import Target, assign_targets, stored_contributions
from .topics import upsert_topic_refs


def work_key(record: WorkRecord) -> str:
    """The record's key in its source, as parse_batch dedupes it and issues name it: the W id
    for OpenAlex (as before), '<origin>:<origin id>' for the others."""
    if record.origin == OPENALEX:
        return record.origin_key
    return f"{record.origin}:{record.origin_key}"


@dataclass
class PreparedWorks:
    """What write_works computes from the records alone, before it touches the database: pure
    Python (hashes, contributions), so ingest.parsing computes it in the thread that reads the
    next batch."""

    sources: list[SourceRecord]
    venues: list[SourceRecord]
    institutions: list[InstitutionRef]
    topics: list[TopicRecord]
    authors: list[AuthorRef]
    hashes: list[str]
    contributions: list[dict[str, Any]]
    identifier_warnings: list[Warning_] = field(default_factory=list)
    # What write_work_references returned, once a transaction of its own committed it (see
    # ingest.services.batches): write_works then reads these ids instead of writing again.
    references: tuple[dict[str, int], dict[str, int]] | None = None


def prepare_works(records: Sequence[WorkRecord]) -> PreparedWorks:
    return PreparedWorks(
        sources=list(
            {
                r.source.openalex_id: r.source for r in records if r.source and r.source.openalex_id
            }.values()
        ),
        venues=[r.source for r in records if r.source and not r.source.openalex_id],
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
                for t in (
                    *(t for wt in r.topics for t in (*wt.ancestors, wt.topic)),
                    *(category_topic(code) for code in r.categories),
                )
            }.values()
        ),
        authors=list(
            {
                a.author.openalex_id: a.author
                for r in records
                for a in r.authorships
                if a.author and a.author.openalex_id
            }.values()
        ),
        hashes=[content_hash(r) for r in records],
        contributions=[contribution_fields(r) for r in records],
    )


_WORK_COLUMNS = [
    ("ref", "int"),
    ("id", "int8"),
    ("is_new", "bool"),
    ("openalex_id", "text"),
    ("doi", "text"),
    ("arxiv_id", "text"),
    ("title", "text"),
    ("abstract", "text"),
    ("type", "text"),
    ("publication_date", "date"),
    ("publication_year", "int"),
    ("publication_date_precision", "text"),
    ("source_id", "int8"),
    ("cited_by_count", "int"),
    ("counts_by_year", "jsonb"),
    ("open_access_url", "text"),
    ("code_url", "text"),
    ("language", "text"),
    ("authors_count", "int"),
    ("journal_ref", "text"),
    ("title_key", "text"),
    ("byline_origin", "text"),
    ("content_hash", "text"),
]
_WRITTEN = [name for name, _ in _WORK_COLUMNS[3:]]


def _venue_ids(
    cursor: Cursor, merged: Sequence[dict[str, Any]], venue_ids: dict[str, int]
) -> dict[str, int]:
    refs = {m["venue"] for m in merged if m["venue"]}
    openalex = [r.split(":", 1)[1] for r in refs if r.startswith("openalex:")]
    found = {
        f"openalex:{k}": v
        for k, v in ids_by_key(cursor, "publications_source", "openalex_id", openalex).items()
    }
    missing = [r for r in refs if not r.startswith("openalex:") and r not in venue_ids]
    found.update(ids_by_key(cursor, "publications_source", "venue_key", missing))
    return {**venue_ids, **found}


def _write_work_rows(
    cursor: Cursor,
    targets: Sequence[Target],
    merged: Sequence[dict[str, Any]],
    venue_ids: dict[str, int],
    result: WriteResult,
) -> dict[int, Any]:
    """Insert the new works and update the changed ones; returns each target's arrival
    (created_at) by ref, and sets target.id on the new ones.

    It stays whole because the insert of new works and the update of changed ones share one
    staging table and the arrival times they return.
    """
    new = [t for t in targets if t.id is None]
    new_refs = {t.ref for t in new}
    if new:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence('publications_work', 'id')) FROM generate_series(1, %s)",
            [len(new)],
        )
        for target, (work_id,) in zip(new, cursor.fetchall(), strict=True):
            target.id = work_id
    rows = []
    for target, m in zip(targets, merged, strict=True):
        row = [
            target.ref,
            target.id,
            target.ref in new_refs,
            m["openalex_id"],
            m["doi"],
            m["arxiv_id"],
            m["title"],
            m["abstract"] or "",
            (m["type"] or "other")[:40],
            m["publication_date"],
            m["publication_year"],
            m["date_precision"] or "",
            venue_ids.get(m["venue"] or ""),
            m["cited_by_count"],
            orjson.dumps(m["counts_by_year"]).decode(),
            (m["open_access_url"] or "")[:1000],
            (m["code_url"] or "")[:1000],
            (m["language"] or "")[:10],
            m["authors_count"],
            m["journal_ref"] or "",
            (m["title_key"] or None) and m["title_key"][:300],
            m["byline_origin"],
        ]
        row.append(hashlib.md5(orjson.dumps(row[3:]), usedforsecurity=False).hexdigest())
        rows.append(row)
    stage_rows(cursor, "stage_work", _WORK_COLUMNS, rows)
    by_ref = {t.ref: t for t in targets}
    # An identifier another work holds (or an earlier work of this batch): written without it.
    for column in ("openalex_id", "doi", "arxiv_id"):
        cursor.execute(
            f"""
            UPDATE stage_work s SET {column} = NULL FROM publications_work t
            WHERE t.{column} = s.{column} AND t.id <> s.id
            RETURNING s.ref, t.{column}, coalesce(t.openalex_id, t.id::text)
            """
        )
        held = cursor.fetchall()
        cursor.execute(
            f"""
            UPDATE stage_work s SET {column} = NULL FROM stage_work o
            WHERE o.{column} = s.{column} AND o.ref < s.ref
            RETURNING s.ref, o.{column}, coalesce(o.openalex_id, 'this batch')
            """
        )
        for ref, value, holder in [*held, *cursor.fetchall()]:
            result.warnings.append(
                Warning_(
                    _target_label(by_ref[ref]),
                    f"{column} {value} already belongs to {holder}; imported without it",
                )
            )
    names = ", ".join(_WRITTEN)
    cursor.execute(
        f"""
        INSERT INTO publications_work (id, {names}, created_at, updated_at)
        SELECT id, {names}, now(), now() FROM stage_work WHERE is_new ORDER BY id
        """
    )
    existing = [t.id for t in targets if t.ref not in new_refs]
    arrivals: dict[int, Any] = {}
    if existing:
        # Locked in id order, so two batches touching the same works cannot deadlock.
        cursor.execute(
            "SELECT id, created_at FROM publications_work WHERE id = ANY(%s) ORDER BY id FOR UPDATE",
            [existing],
        )
        arrivals.update(cursor.fetchall())
        cursor.execute(
            f"""
            UPDATE publications_work t SET {", ".join(f"{n} = s.{n}" for n in _WRITTEN)}, updated_at = now()
            FROM stage_work s
            WHERE t.id = s.id AND NOT s.is_new AND t.content_hash IS DISTINCT FROM s.content_hash
            """
        )
    if new:
        cursor.execute(
            "SELECT id, created_at FROM publications_work WHERE id = ANY(%s)", [[t.id for t in new]]
        )
        arrivals.update(cursor.fetchall())
    return arrivals


def _target_label(target: Target) -> str:
    return (target.openalex_id or f"work {target.id}")[:64]


def write_work_references(
    cursor: Cursor, prepared: PreparedWorks
) -> tuple[dict[str, int], dict[str, int]]:
    """Insert the sources, venues, institutions, topics and researchers the works name, when
    they are new; rows that exist are neither changed nor locked. Returns the venues' ids by
    venue key and the researchers' ids by OpenAlex id.

    write_works does this first, unless prepared.references holds what a caller already
    committed in a short transaction of its own before the batch's (ingest.services.batches):
    a new row then commits at once, instead of at the end of the batch, and a concurrent batch
    naming the same new author waits for milliseconds rather than for the whole of the other.
    """
    upsert_source_refs(cursor, prepared.sources)
    venue_ids = upsert_venue_refs(cursor, prepared.venues)
    upsert_institution_refs(cursor, prepared.institutions)
    upsert_topic_refs(cursor, prepared.topics)
    return venue_ids, upsert_researcher_refs(cursor, prepared.authors)


def write_works(
    cursor: Cursor,
    records: Sequence[WorkRecord],
    prepared: PreparedWorks | None = None,
    *,
    before_bylines: Callable[[list[int]], None] | None = None,
) -> WriteResult:
    """Upsert works and what they reference (see the module docstring). before_bylines, when
    given, is called with the ids of the existing works about to change, before any of them
    does (the graph keeps their bylines to compare). result.work_ids: every work written.

    It stays whole because it is the batch's order of set-based steps (targets, rows, sources,
    versions, bylines, topics, listings, citations), each a call with its own docstring; read top to bottom
    it is the write of a batch.
    """
    if prepared is None:
        prepared = prepare_works(records)
    result = WriteResult()
    result.warnings.extend(prepared.identifier_warnings)
    if prepared.references is not None:
        # Copies: the write adds to them, and a rolled-back attempt must not leave its ids.
        venue_ids, openalex_researcher_ids = (dict(ids) for ids in prepared.references)
    else:
        venue_ids, openalex_researcher_ids = write_work_references(cursor, prepared)

    # 2. Source records seen before: unchanged ones stop here.
    cursor.execute(
        """
        SELECT k.i, s.work_id, s.content_hash, (k.updated_at < s.source_updated_at)
        FROM unnest(%s::int[], %s::text[], %s::text[], %s::timestamptz[]) AS k(i, origin, origin_id, updated_at)
        JOIN publications_worksource s ON s.origin = k.origin AND s.origin_id = k.origin_id
        """,
        [
            list(range(len(records))),
            [r.origin for r in records],
            [r.origin_key for r in records],
            [r.source_updated_at for r in records],
        ],
    )
    known_work: dict[int, int] = {}
    unchanged: set[int] = set()
    for index, work_id, stored_hash, older in cursor.fetchall():
        if stored_hash == prepared.hashes[index] or older:
            unchanged.add(index)
        else:
            known_work[index] = work_id
    result.unchanged += len(unchanged)
    todo = [i for i in range(len(records)) if i not in unchanged]
    if not todo:
        return result

    # 3. Each changed record to its work.
    targets = assign_targets(cursor, records, prepared.contributions, todo, known_work, result)
    replaced = {(records[i].origin, records[i].origin_key) for i in todo}
    stored = stored_contributions(cursor, targets, replaced)
    merged = []
    for target in targets:
        contributions = [
            c for w in (target.id, *target.absorbed) if w is not None for c in stored.get(w, [])
        ]
        contributions += [
            Contribution(records[i].origin, records[i].origin_key, prepared.contributions[i])
            for i in target.records
        ]
        merged.append(merged_work(contributions))
    existing_ids = [w for t in targets if t.id is not None for w in (t.id, *t.absorbed)]
    if before_bylines is not None:
        before_bylines(existing_ids)
    # Two works that are one: the survivor absorbs the others before it is written.
    absorption = absorb_works(
        cursor, [(w, int(t.id or 0)) for t in targets for w in t.absorbed], result
    )
    for target in targets:
        result.created += 1 if target.id is None else 0
        result.updated += len(target.records) - (1 if target.id is None else 0)

    # 4. The works themselves.
    venue_ids = _venue_ids(cursor, merged, venue_ids)
    arrivals = _write_work_rows(cursor, targets, merged, venue_ids, result)
    # Every target has its id now (new ones drawn in _write_work_rows).
    ids = [int(t.id or 0) for t in targets]
    work_of = {i: work_id for t, work_id in zip(targets, ids, strict=True) for i in t.records}
    result.work_ids.update(ids)

    # 5. Each source's contribution, with its origin.
    stage_rows(
        cursor,
        "stage_work_source",
        [
            ("work_id", "int8"),
            ("origin", "text"),
            ("origin_id", "text"),
            ("fields", "jsonb"),
            ("content_hash", "text"),
            ("source_updated_at", "timestamptz"),
        ],
        [
            (
                work_of[i],
                records[i].origin,
                records[i].origin_key[:400],
                orjson.dumps(prepared.contributions[i]).decode(),
                prepared.hashes[i],
                records[i].source_updated_at,
            )
            for i in todo
        ],
    )
    cursor.execute(
        """
        INSERT INTO publications_worksource AS t
            (work_id, origin, origin_id, fields, content_hash, source_updated_at, created_at, updated_at)
        SELECT work_id, origin, origin_id, fields, content_hash, source_updated_at, now(), now()
        FROM stage_work_source ORDER BY origin, origin_id
        ON CONFLICT (origin, origin_id) DO UPDATE SET
            work_id = EXCLUDED.work_id, fields = EXCLUDED.fields,
            content_hash = EXCLUDED.content_hash, source_updated_at = EXCLUDED.source_updated_at,
            updated_at = now()
        """
    )
    # Researchers a moderator took off these works (refusals.py): left off, given no slot.
    refused = work_author_refusals(cursor, ids)
    write_bylines(
        cursor,
        records,
        targets=[
            (work_id, t.records, m) for work_id, t, m in zip(ids, targets, merged, strict=True)
        ],
        arrivals=arrivals,
        openalex_researcher_ids=openalex_researcher_ids,
        result=result,
    )
    bylines_unite(
        cursor,
        absorption,
        shown={
            int(t.id or 0): _shown_byline(records, t, m)
            for t, m in zip(targets, merged, strict=True)
            if t.absorbed
        },
        arrivals=arrivals,
        result=result,
        refused=refused,
    )
    refusals_apply(cursor, refused)
    result.work_ids.update(w for t in targets for w in t.absorbed)
    # What the researcher says is theirs (ORCID's listed_by), after every byline is written.
    apply_listed_by(cursor, records, work_of=work_of, result=result, refused=refused)
    write_work_topics(cursor, records, work_of=work_of, arrivals=arrivals)
    write_versions(cursor, list(zip(ids, merged, strict=True)))
    # What the works cite, and the references that waited for them (citations.py).
    write_citations(cursor, records, work_of)
    citations_resolve_arrived(cursor, ids)
    return result


def _shown_byline(
    records: Sequence[WorkRecord], target: Target, merged: dict[str, Any]
) -> tuple[str, str] | None:
    """The stored contribution whose byline the work shows; None when a record of the batch
    gives it (write_bylines wrote it)."""
    shown = (merged["byline_origin"], merged["byline_origin_id"])
    if not merged["byline_origin"] or any(
        (records[i].origin, records[i].origin_key) == shown for i in target.records
    ):
        return None
    return shown
