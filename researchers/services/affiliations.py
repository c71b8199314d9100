"""Affiliations a source other than OpenAlex states: a researcher's current positions from their
ORCID CV (issue 24, item 6). A record whose OpenAlex author has no last known institution but
whose ORCID record lists a current employment is affiliated with it, labelled with its source.

Set-based: a few statements for a whole batch of researchers, whatever their number.
Institutions are found by ROR id, or else by name (letter case aside); one that
is not there yet is created with what the source says (a ROR id, or the name alone), so the
next record naming it finds it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from django.db import connection, transaction

from .. import page_cache


@dataclass(frozen=True, slots=True)
class StatedAffiliation:
    """A current position as a source states it."""

    researcher_id: int
    organisation: str
    ror: str = ""  # the ROR id alone ("05qwgg493"), when the source gives one
    country: str = ""
    role: str = ""
    start_year: int | None = None


_STAGE = """
CREATE TEMP TABLE IF NOT EXISTS stage_stated_affiliation (
    researcher_id bigint, organisation text, name_key text, ror text, country text, role text,
    start_year int, institution_id bigint
) ON COMMIT DROP
"""


def affiliations_replace_for_source(
    *, source: str, researcher_ids: Collection[int], stated: Sequence[StatedAffiliation]
) -> int:
    """Make the `source` affiliations of these researchers exactly `stated` (each researcher's
    other sources' affiliations stay). Returns the number of affiliations written. The caller
    holds the transaction."""
    if not researcher_ids:
        return 0
    rows = [
        (
            a.researcher_id,
            " ".join(a.organisation.split())[:500],
            " ".join(a.organisation.split())[:500].lower(),
            a.ror[:32] or None,
            a.country[:2].upper(),
            a.role[:200],
            a.start_year,
        )
        for a in stated
        if a.organisation.strip()
    ]
    with connection.cursor() as cursor:
        cursor.execute(_STAGE)
        cursor.execute("TRUNCATE stage_stated_affiliation")
        if rows:
            columns = [list(column) for column in zip(*rows, strict=True)]
            cursor.execute(
                """
                INSERT INTO stage_stated_affiliation
                    (researcher_id, organisation, name_key, ror, country, role, start_year)
                SELECT * FROM unnest(%s::int8[], %s::text[], %s::text[], %s::text[], %s::text[],
                                     %s::text[], %s::int[])
                """,
                columns,
            )
            # Institutions by ROR id first: created when new, one row per id.
            cursor.execute(
                """
                INSERT INTO researchers_institution
                    (name, ror, country_code, type, homepage, email_domains, content_hash,
                     created_at, updated_at, followers_count)
                SELECT DISTINCT ON (ror) organisation, ror, country, '', '', '{}', '', now(),
                       now(), 0
                FROM stage_stated_affiliation WHERE ror IS NOT NULL
                ORDER BY ror, organisation
                ON CONFLICT (ror) DO NOTHING
                """
            )
            cursor.execute(
                """
                UPDATE stage_stated_affiliation s SET institution_id = i.id
                FROM researchers_institution i WHERE s.ror IS NOT NULL AND i.ror = s.ror
                """
            )
            # The others by name: the lowest id of that name wins; a name not there is created.
            by_name = """
                UPDATE stage_stated_affiliation s SET institution_id = m.id
                FROM (SELECT lower(name) AS name_key, min(id) AS id FROM researchers_institution
                      WHERE lower(name) IN (SELECT name_key FROM stage_stated_affiliation
                                            WHERE institution_id IS NULL)
                      GROUP BY 1) m
                WHERE s.institution_id IS NULL AND m.name_key = s.name_key
            """
            cursor.execute(by_name)
            cursor.execute(
                """
                INSERT INTO researchers_institution
                    (name, country_code, type, homepage, email_domains, content_hash,
                     created_at, updated_at, followers_count)
                SELECT DISTINCT ON (name_key) organisation, country, '', '', '{}', '', now(),
                       now(), 0
                FROM stage_stated_affiliation WHERE institution_id IS NULL
                ORDER BY name_key, organisation
                """
            )
            cursor.execute(by_name)
        cursor.execute(
            "DELETE FROM researchers_affiliation WHERE researcher_id = ANY(%s) AND source = %s",
            [list(researcher_ids), source],
        )
        cursor.execute(
            """
            INSERT INTO researchers_affiliation
                (researcher_id, institution_id, role, start_year, end_year, source)
            SELECT DISTINCT ON (researcher_id, institution_id)
                   researcher_id, institution_id, role, start_year, NULL, %s
            FROM stage_stated_affiliation
            WHERE researcher_id = ANY(%s)
            ORDER BY researcher_id, institution_id, start_year DESC NULLS LAST
            ON CONFLICT DO NOTHING
            """,
            [source, list(researcher_ids)],
        )
        written = cursor.rowcount
    ids = list(researcher_ids)
    transaction.on_commit(lambda: page_cache.profile_pages_invalidate(researcher_ids=ids))
    return written
