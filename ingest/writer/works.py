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
   and written (new works inserted with ids drawn first, changed ones updated by id;
   work_rows.py);
5. WorkSource rows are upserted; bylines, topics and versions follow (bylines.py).

Preconditions: the caller holds a transaction (the staging tables drop on commit).
"""

from __future__ import annotations

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
from .absorb import Absorption, absorb_works, bylines_unite
from .bylines import category_topic, write_bylines, write_versions, write_work_topics
from .citations import citations_resolve_arrived, write_citations
from .institutions import upsert_institution_refs
from .listed_by import apply_listed_by
from .merge import Contribution, contribution_fields, merged_work
from .refusals import refusals_apply, work_author_refusals
from .researchers import upsert_researcher_refs
from .sources import upsert_source_refs, upsert_venue_refs
from .staging import Cursor, Warning_, WriteResult, stage_rows
from .targets import Target, assign_targets, stored_contributions
from .topics import upsert_topic_refs
from .work_rows import venue_ids_of, write_work_rows


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


def _sources_seen(
    cursor: Cursor, records: Sequence[WorkRecord], hashes: Sequence[str]
) -> tuple[dict[int, int], set[int]]:
    """Step 2: the batch's source records already in WorkSource (one query). Returns the work a
    changed one names, by record index, and the indexes of the unchanged (same content hash) or
    older copies, which stop here."""
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
        if stored_hash == hashes[index] or older:
            unchanged.add(index)
        else:
            known_work[index] = work_id
    return known_work, unchanged


def _targets_merge(
    records: Sequence[WorkRecord],
    prepared: PreparedWorks,
    targets: Sequence[Target],
    stored: dict[int, list[Contribution]],
) -> list[dict[str, Any]]:
    """Each target's fields merged from every contribution: the stored ones of its work and of
    the works it absorbs, then the batch's records."""
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
    return merged


def _write_work_sources(
    cursor: Cursor,
    records: Sequence[WorkRecord],
    prepared: PreparedWorks,
    todo: Sequence[int],
    work_of: dict[int, int],
) -> None:
    """Step 5: upsert each changed record's contribution (WorkSource), with its origin."""
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


def _write_bylines_and_links(
    cursor: Cursor,
    records: Sequence[WorkRecord],
    *,
    targets: Sequence[Target],
    ids: list[int],
    merged: Sequence[dict[str, Any]],
    work_of: dict[int, int],
    arrivals: dict[int, Any],
    absorption: Absorption,
    openalex_researcher_ids: dict[str, int],
    result: WriteResult,
    new_ids: set[int],
) -> None:
    """What hangs off the written works, in this order: bylines (and those of absorbed works),
    moderators' refusals, ORCID listings, topics, versions, citations. new_ids: the works the
    batch created."""
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
    write_citations(cursor, records, work_of, new_work_ids=new_ids)
    citations_resolve_arrived(cursor, ids)


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

    Read top to bottom it is the write of a batch: the numbered steps of the module docstring,
    each a call.
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
    known_work, unchanged = _sources_seen(cursor, records, prepared.hashes)
    result.unchanged += len(unchanged)
    todo = [i for i in range(len(records)) if i not in unchanged]
    if not todo:
        return result

    # 3. Each changed record to its work.
    targets = assign_targets(cursor, records, prepared.contributions, todo, known_work, result)
    replaced = {(records[i].origin, records[i].origin_key) for i in todo}
    stored = stored_contributions(cursor, targets, replaced)
    merged = _targets_merge(records, prepared, targets, stored)
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

    # 4. The works themselves. The new ones get their ids here; nothing can refer to them yet
    # (the citations copy theirs).
    new_refs = {t.ref for t in targets if t.id is None and not t.absorbed}
    venue_ids = venue_ids_of(cursor, merged, venue_ids)
    arrivals = write_work_rows(cursor, targets, merged, venue_ids, result)
    # Every target has its id now (new ones drawn in write_work_rows).
    ids = [int(t.id or 0) for t in targets]
    work_of = {i: work_id for t, work_id in zip(targets, ids, strict=True) for i in t.records}
    result.work_ids.update(ids)

    # 5. Each source's contribution, with its origin; then bylines, topics, versions.
    _write_work_sources(cursor, records, prepared, todo, work_of)
    _write_bylines_and_links(
        cursor,
        records,
        targets=targets,
        ids=ids,
        merged=merged,
        work_of=work_of,
        arrivals=arrivals,
        absorption=absorption,
        openalex_researcher_ids=openalex_researcher_ids,
        result=result,
        new_ids={int(t.id or 0) for t in targets if t.ref in new_refs},
    )
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
