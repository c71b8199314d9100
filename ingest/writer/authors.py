"""The researchers a byline names, whatever the source: found or created, in a few statements
per batch.

- An OpenAlex author id decides (upsert_researcher_refs, as before).
- Else a checksum-valid ORCID iD decides: the researcher with that iD, or a new identified (L1)
  record holding it.
- Else the author is name-only: the L0 record made for the same name on the same source record
  before (NameOnlyAuthor), else whoever resolve_name_only_authors links them to, else a new
  L0 record. Wrong merges are worse than duplicates, so by default nothing is linked by name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.utils.text import slugify
from unidecode import unidecode

from researchers.names import normalize_name

from ..records import AuthorRef
from ..resolution.evidence import researcher_statistics_ensure
from .identity import orcid_is_valid
from .researchers import (
    NAME_ONLY_RESEARCHER_DEFAULT_VALUES,
    NEW_RESEARCHER_DEFAULT_NAMES,
    NEW_RESEARCHER_DEFAULT_VALUES,
)
from .resolver import name_resolution
from .staging import Cursor, Warning_, stage_rows


@dataclass(frozen=True)
class NameMention:
    """A name without identifiers on one source record. The fields after display_name are what
    the byline says around the name, for the resolver (writer/resolver.py); they are not part
    of the mention's identity."""

    origin: str
    origin_id: str
    name_key: str  # normalize_name of the name
    display_name: str
    given_name: str = field(default="", compare=False)
    family_name: str = field(default="", compare=False)
    dblp: str | None = field(default=None, compare=False)  # 'Wei Wang 0001'
    coauthor_ids: frozenset[int] = field(default=frozenset(), compare=False)
    institution_openalex_ids: frozenset[str] = field(default=frozenset(), compare=False)
    affiliation_names: tuple[str, ...] = field(default=(), compare=False)
    # The learned resolver's evidence (ingest.resolution): the work the byline is on (its
    # venue and year), every other name on the byline as written (the team), its topics.
    work_id: int | None = field(default=None, compare=False)
    coauthor_names: tuple[str, ...] = field(default=(), compare=False)
    topic_keys: frozenset[str] = field(default=frozenset(), compare=False)


def resolve_name_only_authors(
    cursor: Cursor, mentions: Sequence[NameMention]
) -> dict[NameMention, int]:
    """THE HOOK for the conservative name resolver (issue 15, item 7; S3): return the existing
    researcher id of each mention it links with enough independent evidence (two shared
    resolved coauthors, or one and the same institution; compatible given names; never across
    two ORCID iDs; clearly ahead of the next candidate), and store its reasons. Mentions it
    leaves out become new L0 records. Called once per batch, with the mentions not seen before;
    it must be set-based (a few queries per batch, never one per mention).

    The resolver is writer/resolver.py (the learned one, ingest.resolution; issue 15's rules,
    researchers.resolution, when RESOLVER says so)."""
    return name_resolution(cursor, mentions).links


def _l0_slug(mention: NameMention) -> str:
    """Deterministic, so two batches making the same mention's record make one. A dblp name
    with its homonym number is one person wherever it appears: one record for all of them."""
    identity = (
        f"dblp\x00{mention.dblp}"
        if mention.dblp
        else f"{mention.origin}\x00{mention.origin_id}\x00{mention.name_key}"
    )
    digest = hashlib.md5(  # noqa: S324 - an identifier, not security
        identity.encode(),
        usedforsecurity=False,
    ).hexdigest()[:10]
    base = slugify(unidecode(mention.display_name))[:80].strip("-") or "researcher"
    return f"{base}-n{digest}"


def _orcid_slug(display_name: str, orcid: str) -> str:
    base = slugify(unidecode(display_name))[:80].strip("-") or "researcher"
    return f"{base}-{orcid.lower()}"


def researchers_by_orcid(cursor: Cursor, authors: Sequence[AuthorRef]) -> dict[str, int]:
    """Researcher ids by ORCID iD for authors with a valid iD (no OpenAlex id); new ones are
    inserted as identified (L1) records."""
    unique = {a.orcid: a for a in authors if a.orcid and orcid_is_valid(a.orcid)}
    if not unique:
        return {}
    query = (
        "SELECT orcid, coalesce(merged_into_id, id) FROM researchers_researcher"
        " WHERE orcid = ANY(%s)"
    )
    cursor.execute(query, [list(unique)])
    ids: dict[str, int] = dict(cursor.fetchall())
    missing = [a for orcid, a in unique.items() if orcid not in ids]
    if missing:
        stage_rows(
            cursor,
            "stage_orcid_ref",
            [
                ("orcid", "text"),
                ("display_name", "text"),
                ("name_normalized", "text"),
                ("slug", "text"),
            ],
            [
                (
                    a.orcid,
                    (a.display_name or a.orcid or "")[:500],
                    normalize_name(a.display_name)[:500],
                    _orcid_slug(a.display_name, a.orcid or ""),
                )
                for a in missing
            ],
        )
        cursor.execute(
            f"""
            INSERT INTO researchers_researcher
                (slug, display_name, name_normalized, alternate_names, orcid, content_hash,
                 {NEW_RESEARCHER_DEFAULT_NAMES}, created_at, updated_at)
            SELECT slug, display_name, name_normalized, '{{}}', orcid, '',
                   {NEW_RESEARCHER_DEFAULT_VALUES}, now(), now()
            FROM stage_orcid_ref ORDER BY orcid
            ON CONFLICT DO NOTHING
            """
        )
        cursor.execute(query, [[a.orcid for a in missing]])
        ids.update(cursor.fetchall())
    return ids


def researchers_for_mentions(
    cursor: Cursor, mentions: Sequence[NameMention]
) -> dict[NameMention, int]:
    """Researcher ids of name-only mentions: the record made for the same mention before, the
    resolver's link, or a new L0 record (made here)."""
    unique = list(dict.fromkeys(m for m in mentions if m.name_key))
    if not unique:
        return {}

    def known() -> dict[NameMention, int]:
        by_key = {(m.origin, m.origin_id, m.name_key): m for m in unique}
        cursor.execute(
            """
            SELECT n.origin, n.origin_id, n.name_key, coalesce(r.merged_into_id, r.id)
            FROM publications_nameonlyauthor n
            JOIN unnest(%s::text[], %s::text[], %s::text[]) AS k(origin, origin_id, name_key)
              ON n.origin = k.origin AND n.origin_id = k.origin_id AND n.name_key = k.name_key
            JOIN researchers_researcher r ON r.id = n.researcher_id
            """,
            [
                [m.origin for m in unique],
                [m.origin_id for m in unique],
                [m.name_key for m in unique],
            ],
        )
        return {by_key[(o, oid, key)]: rid for o, oid, key, rid in cursor.fetchall()}

    ids = known()
    new = [m for m in unique if m not in ids]
    if not new:
        return ids
    # The resolver's lookup by name needs the researchers' statistics, the batch's own new
    # records counted (see there).
    researcher_statistics_ensure(cursor)
    resolution = name_resolution(cursor, new)
    linked = resolution.links
    rows = []
    for mention in new:
        rows.append((mention, linked.get(mention)))
    stage_rows(
        cursor,
        "stage_name_only",
        [
            ("origin", "text"),
            ("origin_id", "text"),
            ("name_key", "text"),
            ("display_name", "text"),
            ("slug", "text"),
            ("researcher_id", "int8"),
            ("dblp_id", "text"),
        ],
        [
            (
                m.origin,
                m.origin_id,
                m.name_key,
                m.display_name[:500],
                _l0_slug(m),
                rid,
                (m.dblp or "")[:100] or None,
            )
            for m, rid in rows
        ],
    )
    # New L0 records for the mentions the resolver left out; the slug is deterministic, so a
    # concurrent batch's copy is found instead of doubled.
    cursor.execute(
        f"""
        INSERT INTO researchers_researcher
            (slug, display_name, name_normalized, alternate_names, content_hash, dblp_id,
             {NEW_RESEARCHER_DEFAULT_NAMES}, created_at, updated_at)
        SELECT DISTINCT ON (slug) slug, display_name, name_key, '{{}}', '', dblp_id,
               {NAME_ONLY_RESEARCHER_DEFAULT_VALUES}, now(), now()
        FROM stage_name_only WHERE researcher_id IS NULL ORDER BY slug
        ON CONFLICT DO NOTHING
        """
    )
    cursor.execute(
        """
        INSERT INTO publications_nameonlyauthor (origin, origin_id, name_key, researcher_id)
        SELECT s.origin, s.origin_id, s.name_key, coalesce(s.researcher_id, r.id)
        FROM stage_name_only s LEFT JOIN researchers_researcher r ON r.slug = s.slug
        WHERE coalesce(s.researcher_id, r.id) IS NOT NULL
        ORDER BY s.origin, s.origin_id, s.name_key
        ON CONFLICT DO NOTHING
        """
    )
    ids.update(known())
    resolution.record(ids)
    return ids


def invalid_orcid_warnings(external_id: str, authors: Sequence[AuthorRef]) -> list[Warning_]:
    return [
        Warning_(
            external_id, f"ORCID iD {a.orcid} of {a.display_name!r} fails its checksum; ignored"
        )
        for a in authors
        if a.orcid and not a.openalex_id and not orcid_is_valid(a.orcid)
    ]
