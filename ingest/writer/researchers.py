"""Researchers (OpenAlex authors): full records with their affiliations, and the authors that
bylines name."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.utils.text import slugify
from unidecode import unidecode

from researchers.names import normalize_name

from ..records import AuthorRef, ResearcherRecord, content_hash
from .institutions import upsert_institution_refs
from .staging import (
    Column,
    Cursor,
    UniqueIdentifier,
    UpsertTable,
    Warning_,
    WriteResult,
    ids_by_key,
    stage_and_upsert,
    stage_rows,
)

# What a researcher row the importer creates starts with. An OpenAlex id makes a record
# "identified" (L1); see researchers.models.VerificationLevel.
_NEW_RESEARCHER_DEFAULTS = [
    ("tagline", "''"),
    ("open_to_collaborate", "true"),
    ("homepage", "''"),
    ("verification_level", "1"),
    ("trust_score", "0"),
    ("trust_breakdown", "'{}'::jsonb"),
    ("works_count", "0"),
    ("cited_by_count", "0"),
    ("h_index", "0"),
    ("i10_index", "0"),
    ("topics_count", "0"),
    ("followers_count", "0"),
    ("citations_by_year", "'{}'::jsonb"),
    ("links", "'[]'::jsonb"),
]
_DEFAULT_NAMES = ", ".join(name for name, _ in _NEW_RESEARCHER_DEFAULTS)
_DEFAULT_VALUES = ", ".join(value for _, value in _NEW_RESEARCHER_DEFAULTS)
# For writer/authors.py: identified (L1) records, and name-only (L0) ones.
NEW_RESEARCHER_DEFAULT_NAMES = _DEFAULT_NAMES
NEW_RESEARCHER_DEFAULT_VALUES = _DEFAULT_VALUES
NAME_ONLY_RESEARCHER_DEFAULT_VALUES = ", ".join(
    "0" if name == "verification_level" else value for name, value in _NEW_RESEARCHER_DEFAULTS
)

# What the source states for the whole record (records.StatedFigures), beside the figures
# bzpeer computes from the works it holds (graph's metrics): replaced by each newer record, so
# figures a source stops stating go.
_STATED_STAGED = [
    ("stated_works_count", "int"),
    ("stated_cited_by_count", "int"),
    ("stated_h_index", "int"),
    ("stated_i10_index", "int"),
    ("stated_two_year_mean_citedness", "float8"),
    ("stated_figures_source", "text"),
    ("stated_figures_as_of", "date"),
]


def _stated_values(record: ResearcherRecord) -> tuple[Any, ...]:
    figures = record.stated_figures
    if figures is None:
        return (None, None, None, None, None, "", None)
    return (
        figures.works_count,
        figures.cited_by_count,
        figures.h_index,
        figures.i10_index,
        figures.two_year_mean_citedness,
        figures.source,
        figures.as_of,
    )


_RESEARCHERS = UpsertTable(
    table="researchers_researcher",
    stage="stage_researcher",
    staged=[
        ("openalex_id", "text"),
        ("display_name", "text"),
        ("name_normalized", "text"),
        ("alternate_names", "text[]"),
        ("orcid", "text"),
        ("institution_openalex_id", "text"),
        ("slug", "text"),
        ("content_hash", "text"),
        ("source_updated_at", "timestamptz"),
        *_STATED_STAGED,
    ],
    columns=[
        # The slug a profile was created with stays its address.
        Column("slug", insert_only=True),
        Column("display_name"),
        Column("name_normalized"),
        Column("alternate_names"),
        # A record that lost its ORCID iD upstream keeps the one it had.
        Column("orcid", update="COALESCE(EXCLUDED.orcid, t.orcid)"),
        Column("last_known_institution_id", "i.id"),
        *(Column(name) for name, _ in _STATED_STAGED),
        *(Column(name, value, insert_only=True) for name, value in _NEW_RESEARCHER_DEFAULTS),
    ],
    joins="LEFT JOIN researchers_institution i ON i.openalex_id = s.institution_openalex_id",
    unique_identifiers=[
        UniqueIdentifier("orcid", "ORCID iD already belongs to {holder}; imported without it")
    ],
    returning=["id"],
    # The upsert may set an ORCID iD (a key column), so it takes FOR UPDATE: first, in id order.
    lock_existing="FOR UPDATE",
)


def researcher_slug(display_name: str, openalex_id: str) -> str:
    """Stable and unique: the name for people, the OpenAlex id so two namesakes never collide."""
    base = slugify(unidecode(display_name))[:80].strip("-") or "researcher"
    return f"{base}-{openalex_id.lower()}"


def upsert_researcher_refs(cursor: Cursor, authors: Iterable[AuthorRef]) -> dict[str, int]:
    """Insert the authors a batch of works names, when they are new. Existing rows are untouched.

    Returns the researcher id of every author, by OpenAlex id (one whose row could not be
    inserted, e.g. its slug is taken, is missing). Names are normalised and slugs built only
    for the authors that are new.
    """
    unique = {a.openalex_id: a for a in authors if a.openalex_id}
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
    stage_rows(
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
                researcher_slug(a.display_name, a.openalex_id or ""),
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
                 content_hash, {_DEFAULT_NAMES}, created_at, updated_at)
            SELECT openalex_id, slug, display_name, name_normalized, '{{}}', {orcid_expression},
                   '', {_DEFAULT_VALUES}, now(), now()
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
            (a.openalex_id for a in missing if a.openalex_id and a.openalex_id not in ids),
        )
    )
    return ids


# ORCID's own records (no OpenAlex id), keyed by their iD: the name the person gives is the
# name shown. An OpenAlex record of the same person holds the same row (its ORCID iD).
_ORCID_RESEARCHERS = UpsertTable(
    table="researchers_researcher",
    stage="stage_researcher_orcid",
    staged=[
        ("orcid", "text"),
        ("display_name", "text"),
        ("name_normalized", "text"),
        ("alternate_names", "text[]"),
        ("slug", "text"),
        ("content_hash", "text"),
        ("source_updated_at", "timestamptz"),
    ],
    columns=[
        Column("slug", insert_only=True),
        Column("display_name"),
        Column("name_normalized"),
        Column("alternate_names"),
        *(Column(name, value, insert_only=True) for name, value in _NEW_RESEARCHER_DEFAULTS),
    ],
    key="orcid",
    returning=["id"],
    # No key column in its SET list: the upsert's lock is FOR NO KEY UPDATE; first, in id order.
    lock_existing="FOR NO KEY UPDATE",
)


def _write_orcid_researchers(
    cursor: Cursor, records: Sequence[ResearcherRecord], result: WriteResult
) -> None:
    from .identity import orcid_is_valid  # noqa: PLC0415 - identity imports records only

    rows = []
    for r in records:
        if not r.orcid or not orcid_is_valid(r.orcid):
            result.warnings.append(
                Warning_(
                    f"orcid:{r.orcid}"[:64], "ORCID iD missing or fails its checksum; not imported"
                )
            )
            continue
        rows.append(
            (
                r.orcid,
                r.display_name[:500] or r.orcid,
                normalize_name(r.display_name)[:500],
                [name[:500] for name in r.alternate_names],
                f"{slugify(unidecode(r.display_name))[:80].strip('-') or 'researcher'}-{r.orcid.lower()}",
                content_hash(r),
                r.source_updated_at,
            )
        )
    changed = stage_and_upsert(cursor, _ORCID_RESEARCHERS, rows, result)
    result.touched_researcher_ids.update(researcher_id for researcher_id, _ in changed)


def write_researchers(cursor: Cursor, records: Sequence[ResearcherRecord]) -> WriteResult:
    """Upsert researchers; a changed one gets its OpenAlex affiliations replaced. Records
    without an OpenAlex id (ORCID's) are keyed by their ORCID iD."""
    result = WriteResult()
    by_orcid = [r for r in records if not r.openalex_id]
    if by_orcid:
        _write_orcid_researchers(cursor, by_orcid, result)
        records = [r for r in records if r.openalex_id]
        if not records:
            return result
    upsert_institution_refs(
        cursor,
        [r.last_known_institution for r in records if r.last_known_institution]
        + [a.institution for r in records for a in r.affiliations],
    )
    changed = stage_and_upsert(
        cursor,
        _RESEARCHERS,
        [
            (
                r.openalex_id,
                r.display_name[:500],
                normalize_name(r.display_name)[:500],
                [name[:500] for name in r.alternate_names],
                r.orcid,
                r.last_known_institution.openalex_id if r.last_known_institution else None,
                researcher_slug(r.display_name, r.openalex_id or ""),
                content_hash(r),
                r.source_updated_at,
                *_stated_values(r),
            )
            for r in records
        ],
        result,
    )
    changed_ids = [researcher_id for researcher_id, _ in changed]
    if changed_ids:
        _replace_affiliations(cursor, records, changed_ids)
    return result


def _replace_affiliations(
    cursor: Cursor, records: Sequence[ResearcherRecord], researcher_ids: list[int]
) -> None:
    """The OpenAlex affiliations of the given researchers become those of their records; the
    ones entered by other means stay."""
    cursor.execute(
        "DELETE FROM researchers_affiliation WHERE researcher_id = ANY(%s) AND source = 'openalex'",
        [researcher_ids],
    )
    stage_rows(
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
        [researcher_ids],
    )
