"""The shared writer: upserts one batch of plain records with set-based SQL.

Each entity kind is staged with COPY into a temporary table and merged with one
INSERT ... ON CONFLICT per table, so a batch of thousands of records costs a handful of
statements, not a query per record. Foreign keys are resolved by joins on external ids
inside PostgreSQL. A content hash on every row lets an unchanged record cost nothing.

Preconditions: the caller holds a transaction (the staging tables drop on commit) and has
removed duplicates of the same external id from the batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import orjson
from django.utils.text import slugify
from unidecode import unidecode

from researchers.names import normalize_name

from .records import (
    AuthorRef,
    InstitutionRecord,
    InstitutionRef,
    ResearcherRecord,
    SourceRecord,
    TopicRecord,
    WorkRecord,
    content_hash,
)


@dataclass
class Warning_:
    external_id: str
    reason: str


@dataclass
class WriteResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    warnings: list[Warning_] = field(default_factory=list)
    touched_researcher_ids: set[int] = field(default_factory=set)
    # Of those, the ones it took off a byline and put on none of its own: nothing it wrote names
    # them, so only this set says their figures changed.
    unlinked_researcher_ids: set[int] = field(default_factory=set)


def researcher_slug(display_name: str, openalex_id: str) -> str:
    """Stable and unique: the name for people, the OpenAlex id so two namesakes never collide."""
    base = slugify(unidecode(display_name))[:80].strip("-") or "researcher"
    return f"{base}-{openalex_id.lower()}"


def _stage(
    cursor, table: str, columns: Sequence[tuple[str, str]], rows: Iterable[Sequence]
) -> None:  # noqa: ANN001
    """Create a temporary table and COPY rows into it (psycopg's binary-safe row writer)."""
    cursor.execute(
        f"CREATE TEMP TABLE {table} ({', '.join(f'{name} {kind}' for name, kind in columns)}) ON COMMIT DROP"
    )
    names = ", ".join(name for name, _ in columns)
    with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _copy_rows(
    cursor, table: str, columns: Sequence[tuple[str, str]], rows: Iterable[Sequence]
) -> None:  # noqa: ANN001
    """COPY rows straight into a table, in binary (the column types are given, so psycopg does
    not format text). For rows that cannot conflict: new works, or works whose rows were deleted."""
    with cursor.copy(
        f"COPY {table} ({', '.join(name for name, _ in columns)}) FROM STDIN (FORMAT BINARY)"
    ) as copy:
        copy.set_types([kind for _, kind in columns])
        for row in rows:
            copy.write_row(row)


def _tally(result: WriteResult, flags: list[tuple[bool]], total: int) -> None:
    created = sum(1 for (is_new,) in flags if is_new)
    result.created += created
    result.updated += len(flags) - created
    result.unchanged += total - len(flags)


# --- sources ---------------------------------------------------------------------------------

_SOURCE_COLUMNS = [
    ("openalex_id", "text"),
    ("name", "text"),
    ("abbreviated_name", "text"),
    ("issn_l", "text"),
    ("type", "text"),
    ("homepage", "text"),
    ("content_hash", "text"),
    ("source_updated_at", "timestamptz"),
]


def _source_rows(records: Iterable[SourceRecord], *, hashed: bool) -> list[tuple]:
    return [
        (
            r.openalex_id,
            r.name[:500],
            r.abbreviated_name,
            r.issn_l,
            r.type[:50],
            r.homepage,
            content_hash(r) if hashed else "",
            r.source_updated_at,
        )
        for r in records
    ]


def upsert_source_refs(cursor, sources: Iterable[SourceRecord]) -> None:  # noqa: ANN001
    rows = _source_rows({s.openalex_id: s for s in sources}.values(), hashed=False)
    if not rows:
        return
    _stage(cursor, "stage_source_ref", _SOURCE_COLUMNS, rows)
    cursor.execute(
        """
        INSERT INTO publications_source
            (openalex_id, name, abbreviated_name, issn_l, type, homepage, content_hash, created_at, updated_at)
        SELECT openalex_id, name, abbreviated_name, issn_l, type, homepage, '', now(), now()
        FROM stage_source_ref ORDER BY openalex_id
        ON CONFLICT DO NOTHING
        """
    )


def write_sources(cursor, records: Sequence[SourceRecord]) -> WriteResult:  # noqa: ANN001
    result = WriteResult()
    _stage(cursor, "stage_source", _SOURCE_COLUMNS, _source_rows(records, hashed=True))
    cursor.execute(
        """
        INSERT INTO publications_source AS s
            (openalex_id, name, abbreviated_name, issn_l, type, homepage, content_hash, source_updated_at,
             created_at, updated_at)
        SELECT openalex_id, name, abbreviated_name, issn_l, type, homepage, content_hash, source_updated_at,
               now(), now()
        FROM stage_source ORDER BY openalex_id
        ON CONFLICT (openalex_id) DO UPDATE SET
            name = EXCLUDED.name, abbreviated_name = EXCLUDED.abbreviated_name,
            issn_l = EXCLUDED.issn_l, type = EXCLUDED.type, homepage = EXCLUDED.homepage,
            content_hash = EXCLUDED.content_hash, source_updated_at = EXCLUDED.source_updated_at,
            updated_at = now()
        WHERE s.content_hash IS DISTINCT FROM EXCLUDED.content_hash
          AND (EXCLUDED.source_updated_at < s.source_updated_at) IS NOT TRUE
        RETURNING (xmax = 0)
        """
    )
    _tally(result, cursor.fetchall(), len(records))
    return result


# --- institutions ----------------------------------------------------------------------------

_INSTITUTION_COLUMNS = [
    ("openalex_id", "text"),
    ("ror", "text"),
    ("name", "text"),
    ("country_code", "text"),
    ("type", "text"),
    ("homepage", "text"),
    ("email_domains", "text[]"),
    ("content_hash", "text"),
    ("source_updated_at", "timestamptz"),
]


def upsert_institution_refs(cursor, institutions: Iterable[InstitutionRef]) -> None:  # noqa: ANN001
    unique = {i.openalex_id: i for i in institutions if i.name}
    if not unique:
        return
    _stage(
        cursor,
        "stage_institution_ref",
        _INSTITUTION_COLUMNS,
        [
            (i.openalex_id, i.ror, i.name[:500], i.country_code, i.type[:50], "", [], "", None)
            for i in unique.values()
        ],
    )
    # A ROR already held by another record would make the row conflict on ror and be skipped;
    # the second statement inserts those without the ROR so the institution itself is not lost.
    for ror_expression in ("ror", "NULL"):
        cursor.execute(
            f"""
            INSERT INTO researchers_institution
                (openalex_id, ror, name, country_code, type, homepage, email_domains, content_hash,
                 created_at, updated_at)
            SELECT openalex_id, {ror_expression}, name, country_code, type, homepage, email_domains,
                   '', now(), now()
            FROM stage_institution_ref s
            WHERE NOT EXISTS (SELECT 1 FROM researchers_institution i WHERE i.openalex_id = s.openalex_id)
            ORDER BY openalex_id
            ON CONFLICT DO NOTHING
            """
        )


def write_institutions(cursor, records: Sequence[InstitutionRecord]) -> WriteResult:  # noqa: ANN001
    result = WriteResult()
    _stage(
        cursor,
        "stage_institution",
        _INSTITUTION_COLUMNS,
        [
            (
                r.openalex_id,
                r.ror,
                r.name[:500],
                r.country_code,
                r.type[:50],
                r.homepage,
                list(r.email_domains),
                content_hash(r),
                r.source_updated_at,
            )
            for r in records
        ],
    )
    cursor.execute(
        """
        UPDATE stage_institution s SET ror = NULL FROM researchers_institution i
        WHERE i.ror = s.ror AND i.openalex_id IS DISTINCT FROM s.openalex_id
        RETURNING s.openalex_id, s.ror, i.openalex_id
        """
    )
    for openalex_id, _, holder in cursor.fetchall():
        result.warnings.append(
            Warning_(openalex_id, f"ROR already belongs to {holder}; imported without it")
        )
    cursor.execute(
        """
        INSERT INTO researchers_institution AS t
            (openalex_id, ror, name, country_code, type, homepage, email_domains, content_hash,
             source_updated_at, created_at, updated_at)
        SELECT openalex_id, ror, name, country_code, type, homepage, email_domains, content_hash,
               source_updated_at, now(), now()
        FROM stage_institution ORDER BY openalex_id
        ON CONFLICT (openalex_id) DO UPDATE SET
            ror = EXCLUDED.ror, name = EXCLUDED.name, country_code = EXCLUDED.country_code,
            type = EXCLUDED.type, homepage = EXCLUDED.homepage,
            email_domains = ARRAY(SELECT DISTINCT unnest(t.email_domains || EXCLUDED.email_domains)),
            content_hash = EXCLUDED.content_hash, source_updated_at = EXCLUDED.source_updated_at,
            updated_at = now()
        WHERE t.content_hash IS DISTINCT FROM EXCLUDED.content_hash
          AND (EXCLUDED.source_updated_at < t.source_updated_at) IS NOT TRUE
        RETURNING (xmax = 0)
        """
    )
    _tally(result, cursor.fetchall(), len(records))
    return result


# --- topics ----------------------------------------------------------------------------------

_TOPIC_COLUMNS = [
    ("external_id", "text"),
    ("name", "text"),
    ("code", "text"),
    ("level", "text"),
    ("parent_external_id", "text"),
    ("description", "text"),
    ("content_hash", "text"),
    ("source_updated_at", "timestamptz"),
]


def _topic_row(
    topic: TopicRecord, *, hashed: str, updated_at: datetime | None
) -> tuple[object, ...]:
    """A topic's row in _TOPIC_COLUMNS order; a topic known only as an ancestor of another has
    no hash or date of its own, so a later full record of it always updates it."""
    return (
        topic.external_id,
        topic.name[:300],
        topic.code,
        topic.level,
        topic.parent_external_id,
        topic.description,
        hashed,
        updated_at,
    )


def _link_topic_parents(cursor, stage: str) -> None:  # noqa: ANN001
    cursor.execute(
        f"""
        UPDATE publications_topic t SET parent_id = p.id
        FROM {stage} s JOIN publications_topic p ON p.external_id = s.parent_external_id
        WHERE t.external_id = s.external_id AND t.parent_id IS DISTINCT FROM p.id
        """
    )


def upsert_topic_refs(cursor, topics: Iterable[TopicRecord]) -> None:  # noqa: ANN001
    unique = {t.external_id: t for t in topics}
    if not unique:
        return
    _stage(
        cursor,
        "stage_topic_ref",
        _TOPIC_COLUMNS,
        [_topic_row(t, hashed="", updated_at=None) for t in unique.values()],
    )
    cursor.execute(
        """
        INSERT INTO publications_topic (external_id, name, code, level, description, content_hash)
        SELECT external_id, name, code, level, description, '' FROM stage_topic_ref ORDER BY external_id
        ON CONFLICT DO NOTHING
        """
    )
    _link_topic_parents(cursor, "stage_topic_ref")


def write_topics(
    cursor, records: Sequence[tuple[TopicRecord, tuple[TopicRecord, ...]]]
) -> WriteResult:  # noqa: ANN001
    result = WriteResult()
    upsert_topic_refs(cursor, (ancestor for _, ancestors in records for ancestor in ancestors))
    _stage(
        cursor,
        "stage_topic",
        _TOPIC_COLUMNS,
        [_topic_row(t, hashed=content_hash(t), updated_at=t.source_updated_at) for t, _ in records],
    )
    cursor.execute(
        """
        INSERT INTO publications_topic AS t
            (external_id, name, code, level, description, content_hash, source_updated_at)
        SELECT external_id, name, code, level, description, content_hash, source_updated_at
        FROM stage_topic ORDER BY external_id
        ON CONFLICT (external_id) DO UPDATE SET
            name = EXCLUDED.name, code = EXCLUDED.code, level = EXCLUDED.level,
            description = EXCLUDED.description, content_hash = EXCLUDED.content_hash,
            source_updated_at = EXCLUDED.source_updated_at
        WHERE t.content_hash IS DISTINCT FROM EXCLUDED.content_hash
          AND (EXCLUDED.source_updated_at < t.source_updated_at) IS NOT TRUE
        RETURNING (xmax = 0)
        """
    )
    _tally(result, cursor.fetchall(), len(records))
    _link_topic_parents(cursor, "stage_topic")
    return result


# --- researchers -----------------------------------------------------------------------------

_RESEARCHER_INSERT_DEFAULTS = """
    tagline, open_to_collaborate, homepage, verification_level, trust_score, trust_breakdown,
    works_count, cited_by_count, h_index, i10_index, topics_count, followers_count,
    citations_by_year, links, created_at, updated_at
"""
# An OpenAlex id makes a record "identified" (L1); see researchers.models.VerificationLevel.
_RESEARCHER_INSERT_VALUES = (
    "'', true, '', 1, 0, '{}'::jsonb, 0, 0, 0, 0, 0, 0, '{}'::jsonb, '[]'::jsonb, now(), now()"
)


def ids_by_key(cursor, table: str, key_column: str, keys: Iterable[str]) -> dict[str, int]:  # noqa: ANN001
    """Row ids of the given external ids, in one query; ids with no row are left out."""
    keys = list(keys)
    if not keys:
        return {}
    cursor.execute(f"SELECT {key_column}, id FROM {table} WHERE {key_column} = ANY(%s)", [keys])
    return dict(cursor.fetchall())


def upsert_researcher_refs(cursor, authors: Iterable) -> dict[str, int]:  # noqa: ANN001
    """Insert the authors a batch of works names, when they are new. Existing rows are untouched.

    Returns the researcher id of every author, by OpenAlex id (one whose row could not be
    inserted, e.g. its slug is taken, is missing). Names are normalised and slugs built only
    for the authors that are new.
    """
    unique = {a.openalex_id: a for a in authors}
    if not unique:
        return {}
    # A record a moderator merged into another keeps its OpenAlex id; its works go to the survivor.
    cursor.execute(
        "SELECT openalex_id, coalesce(merged_into_id, id) FROM researchers_researcher"
        " WHERE openalex_id = ANY(%s)",
        [list(unique)],
    )
    ids = dict(cursor.fetchall())
    missing = [a for openalex_id, a in unique.items() if openalex_id not in ids]
    if not missing:
        return ids
    _stage(
        cursor,
        "stage_researcher_ref",
        [
            ("openalex_id", "text"),
            ("display_name", "text"),
            ("name_normalized", "text"),
            ("orcid", "text"),
            ("slug", "text"),
        ],
        [
            (
                a.openalex_id,
                a.display_name[:500] or a.openalex_id,
                normalize_name(a.display_name)[:500],
                a.orcid,
                researcher_slug(a.display_name, a.openalex_id),
            )
            for a in missing
        ],
    )
    # An ORCID already held by another record makes the first insert skip the row; the second
    # inserts it without the ORCID. Neither statement can fail on a unique constraint.
    for orcid_expression in ("orcid", "NULL"):
        cursor.execute(
            f"""
            INSERT INTO researchers_researcher
                (openalex_id, slug, display_name, name_normalized, alternate_names, orcid,
                 content_hash, {_RESEARCHER_INSERT_DEFAULTS})
            SELECT openalex_id, slug, display_name, name_normalized, '{{}}', {orcid_expression},
                   '', {_RESEARCHER_INSERT_VALUES}
            FROM stage_researcher_ref s
            WHERE NOT EXISTS (SELECT 1 FROM researchers_researcher r WHERE r.openalex_id = s.openalex_id)
            ORDER BY openalex_id
            ON CONFLICT DO NOTHING
            RETURNING openalex_id, id
            """
        )
        ids.update(cursor.fetchall())
    # Rows a concurrent batch inserted first were skipped above; they are there now.
    ids.update(
        ids_by_key(
            cursor,
            "researchers_researcher",
            "openalex_id",
            (a.openalex_id for a in missing if a.openalex_id not in ids),
        )
    )
    return ids


def write_researchers(cursor, records: Sequence[ResearcherRecord]) -> WriteResult:  # noqa: ANN001
    result = WriteResult()
    upsert_institution_refs(
        cursor,
        [r.last_known_institution for r in records if r.last_known_institution]
        + [a.institution for r in records for a in r.affiliations],
    )
    _stage(
        cursor,
        "stage_researcher",
        [
            ("openalex_id", "text"),
            ("display_name", "text"),
            ("name_normalized", "text"),
            ("alternate_names", "text[]"),
            ("orcid", "text"),
            ("institution_openalex_id", "text"),
            ("slug", "text"),
            ("content_hash", "text"),
            ("source_updated_at", "timestamptz"),
        ],
        [
            (
                r.openalex_id,
                r.display_name[:500],
                normalize_name(r.display_name)[:500],
                [name[:500] for name in r.alternate_names],
                r.orcid,
                r.last_known_institution.openalex_id if r.last_known_institution else None,
                researcher_slug(r.display_name, r.openalex_id),
                content_hash(r),
                r.source_updated_at,
            )
            for r in records
        ],
    )
    cursor.execute(
        """
        UPDATE stage_researcher s SET orcid = NULL FROM researchers_researcher r
        WHERE r.orcid = s.orcid AND r.openalex_id IS DISTINCT FROM s.openalex_id
        RETURNING s.openalex_id, r.openalex_id
        """
    )
    for openalex_id, holder in cursor.fetchall():
        result.warnings.append(
            Warning_(openalex_id, f"ORCID iD already belongs to {holder}; imported without it")
        )
    cursor.execute(
        f"""
        INSERT INTO researchers_researcher AS r
            (openalex_id, slug, display_name, name_normalized, alternate_names, orcid,
             last_known_institution_id, content_hash, source_updated_at, {_RESEARCHER_INSERT_DEFAULTS})
        SELECT s.openalex_id, s.slug, s.display_name, s.name_normalized, s.alternate_names, s.orcid,
               i.id, s.content_hash, s.source_updated_at, {_RESEARCHER_INSERT_VALUES}
        FROM stage_researcher s LEFT JOIN researchers_institution i ON i.openalex_id = s.institution_openalex_id
        ORDER BY s.openalex_id
        ON CONFLICT (openalex_id) DO UPDATE SET
            display_name = EXCLUDED.display_name, name_normalized = EXCLUDED.name_normalized,
            alternate_names = EXCLUDED.alternate_names, orcid = COALESCE(EXCLUDED.orcid, r.orcid),
            last_known_institution_id = EXCLUDED.last_known_institution_id,
            content_hash = EXCLUDED.content_hash, source_updated_at = EXCLUDED.source_updated_at,
            updated_at = now()
        WHERE r.content_hash IS DISTINCT FROM EXCLUDED.content_hash
          AND (EXCLUDED.source_updated_at < r.source_updated_at) IS NOT TRUE
        RETURNING r.id, (xmax = 0)
        """
    )
    changed = cursor.fetchall()
    _tally(result, [(is_new,) for _, is_new in changed], len(records))
    changed_ids = [researcher_id for researcher_id, _ in changed]
    if changed_ids:
        cursor.execute(
            "DELETE FROM researchers_affiliation WHERE researcher_id = ANY(%s) AND source = 'openalex'",
            [changed_ids],
        )
        _stage(
            cursor,
            "stage_affiliation",
            [
                ("researcher_openalex_id", "text"),
                ("institution_openalex_id", "text"),
                ("start_year", "int"),
                ("end_year", "int"),
            ],
            [
                (r.openalex_id, a.institution.openalex_id, a.start_year, a.end_year)
                for r in records
                for a in r.affiliations
            ],
        )
        cursor.execute(
            """
            INSERT INTO researchers_affiliation (researcher_id, institution_id, role, start_year, end_year, source)
            SELECT r.id, i.id, '', s.start_year, s.end_year, 'openalex'
            FROM stage_affiliation s
            JOIN researchers_researcher r ON r.openalex_id = s.researcher_openalex_id
            JOIN researchers_institution i ON i.openalex_id = s.institution_openalex_id
            WHERE r.id = ANY(%s)
            ON CONFLICT DO NOTHING
            """,
            [changed_ids],
        )
    return result


# --- works -----------------------------------------------------------------------------------


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


_WORK_STAGE_COLUMNS = [
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
]


@dataclass
class PreparedWorks:
    """What write_works computes from the records alone, before it touches the database.

    Pure Python and most of the writer's own work (content hashes, staged rows), so a caller can
    compute it ahead of the batch's transaction: publications.services does, in the thread that
    reads and parses the next batch. The referenced entities are listed once each, the last
    copy of each kept, as the upsert_*_refs functions would.
    """

    sources: list[SourceRecord]
    institutions: list[InstitutionRef]
    topics: list[TopicRecord]
    authors: list[AuthorRef]
    identifier_warnings: list[Warning_]
    work_rows: list[tuple]


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
    cursor,
    records: Sequence[WorkRecord],
    prepared: PreparedWorks | None = None,  # noqa: ANN001
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
    _stage(cursor, "stage_work", _WORK_STAGE_COLUMNS, prepared.work_rows)
    # Identifiers held by a different work already in the database: import without them.
    for key in ("doi", "arxiv_id"):
        cursor.execute(
            f"""
            UPDATE stage_work s SET {key} = NULL FROM publications_work w
            WHERE w.{key} = s.{key} AND w.openalex_id IS DISTINCT FROM s.openalex_id
            RETURNING s.openalex_id, w.{key}, w.openalex_id
            """
        )
        for openalex_id, value, holder in cursor.fetchall():
            result.warnings.append(
                Warning_(
                    openalex_id, f"{key} {value} already belongs to {holder}; imported without it"
                )
            )
    cursor.execute(
        """
        INSERT INTO publications_work AS w
            (openalex_id, doi, arxiv_id, title, abstract, type, publication_date, publication_year,
             source_id, cited_by_count, counts_by_year, open_access_url, code_url, language,
             authors_count, content_hash, source_updated_at, created_at, updated_at)
        SELECT s.openalex_id, s.doi, s.arxiv_id, s.title, s.abstract, s.type, s.publication_date,
               s.publication_year, src.id, s.cited_by_count, s.counts_by_year::jsonb, s.open_access_url,
               s.code_url, s.language, s.authors_count, s.content_hash, s.source_updated_at, now(), now()
        FROM stage_work s LEFT JOIN publications_source src ON src.openalex_id = s.source_openalex_id
        ORDER BY s.openalex_id
        ON CONFLICT (openalex_id) DO UPDATE SET
            doi = EXCLUDED.doi, arxiv_id = EXCLUDED.arxiv_id, title = EXCLUDED.title,
            abstract = EXCLUDED.abstract, type = EXCLUDED.type, publication_date = EXCLUDED.publication_date,
            publication_year = EXCLUDED.publication_year, source_id = EXCLUDED.source_id,
            cited_by_count = EXCLUDED.cited_by_count, counts_by_year = EXCLUDED.counts_by_year,
            open_access_url = EXCLUDED.open_access_url, code_url = EXCLUDED.code_url,
            language = EXCLUDED.language, authors_count = EXCLUDED.authors_count,
            content_hash = EXCLUDED.content_hash, source_updated_at = EXCLUDED.source_updated_at,
            updated_at = now()
        WHERE w.content_hash IS DISTINCT FROM EXCLUDED.content_hash
          AND (EXCLUDED.source_updated_at < w.source_updated_at) IS NOT TRUE
        RETURNING w.id, w.openalex_id, (xmax = 0)
        """
    )
    changed = cursor.fetchall()
    _tally(result, [(is_new,) for _, _, is_new in changed], len(records))
    if not changed:
        return result

    updated_ids = [work_id for work_id, _, is_new in changed if not is_new]
    changed_openalex_ids = {openalex_id for _, openalex_id, _ in changed}
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
    work_ids = {openalex_id: work_id for work_id, openalex_id, _ in changed}
    # Ids are resolved here, once per entity kind, so the rows go straight into their tables.
    institution_ids = ids_by_key(
        cursor,
        "researchers_institution",
        "openalex_id",
        {i.openalex_id for r in changed_records for a in r.authorships for i in a.institutions},
    )
    authorship_rows = []
    for r in changed_records:
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
                )
            )
    result.unlinked_researcher_ids = unlinked
    _copy_rows(
        cursor,
        "publications_authorship",
        [
            ("work_id", "int8"),
            ("researcher_id", "int8"),
            ("position", "int2"),
            ("raw_name", "text"),
            ("is_corresponding", "bool"),
            ("institution_ids", "int8[]"),
        ],
        authorship_rows,
    )

    topic_ids = ids_by_key(
        cursor,
        "publications_topic",
        "external_id",
        {wt.topic.external_id for r in changed_records for wt in r.topics},
    )
    # One row per (work, topic): a topic listed twice on a work keeps its first score.
    work_topic_scores: dict[tuple[int, int], float] = {}
    for r in changed_records:
        for wt in r.topics:
            if wt.topic.external_id in topic_ids:
                work_topic_scores.setdefault(
                    (work_ids[r.openalex_id], topic_ids[wt.topic.external_id]), wt.score
                )
    _copy_rows(
        cursor,
        "publications_worktopic",
        [("work_id", "int8"), ("topic_id", "int8"), ("score", "float8")],
        [(work_id, topic_id, score) for (work_id, topic_id), score in work_topic_scores.items()],
    )
    return result
