"""One page of researchers by name, ranked as researchers_matching_name ranks them, with the
count of every match and each record's institution: one statement, for the search page's
researchers tab (search.selectors.researchers.researcher_search).

The queryset way (researchers_matching_name, then a window count and select_related) found the
matches' ids, read every match again by id with all its columns, joined each to its
institution, and scored each name (`similarity` + `word_similarity`, 4-5 µs a name) before
keeping twenty. That is linear in the matches, and a short common name matches thousands
("Ko Ko": 2,599 of 99,813 researchers, 1,548 distinct names; issue 30's p99). Here the
candidate scan, which reads the rows anyway, keeps the few columns the ranking needs; each
distinct name is scored once; the count and the order come from those columns; and only the
page's rows are read whole and joined to their institution. The order and the scores are the
same expressions as researchers_matching_name's (_best_first), so the page is the same.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from django.db import connections
from django.db.models import Model

from bzpeer.db import Converters, field_converters, instance_from_row
from bzpeer.db_router import read_alias

from .models import Institution, Researcher
from .name_search import (
    _BEST_ALTERNATE_SCORE_SQL,
    MAX_QUERY_LENGTH,
    _name_candidates_statement,
)
from .names import normalize_name

_BIGINT_MIN, _BIGINT_MAX = -(2**63), 2**63 - 1

# What the candidate scan keeps of a match: the ranking's columns and the filters'.
_MATCH_COLUMNS = (
    "id, name_normalized, alternate_names, cited_by_count, last_known_institution_id, orcid, "
    "claimed_by_id"
)


@dataclass(frozen=True)
class NamePage:
    """A page of researchers (each annotated `name_score` and `exact_name` as
    researchers_matching_name annotates them, with last_known_institution loaded) and the
    number of matches; 0 when the page is past the end, as a window count over it says."""

    researchers: list[Researcher]
    total: int


@functools.cache
def _model_columns(model: type[Model], alias: str) -> tuple[list[str], list[str], Converters]:
    """For a row of every concrete column of `model`: the columns, the fields' attnames in the
    model's order, and the fields' converters (bzpeer.db.field_converters)."""
    fields = list(model._meta.concrete_fields)
    return (
        [field.column for field in fields],
        [field.attname for field in fields],
        field_converters(model, fields, alias),
    )


def _instance(model: type[Model], alias: str, values: list[Any]) -> Any:
    _columns, names, converters = _model_columns(model, alias)
    return instance_from_row(model, alias, names, values, converters)


def _page_statement(
    normalized_query: str,
    *,
    institution_id: int | None,
    with_orcid: bool,
    claimed: bool,
    offset: int,
    limit: int,
    alias: str,
) -> tuple[str, list[Any]]:
    candidates, candidate_params = _name_candidates_statement(normalized_query, _MATCH_COLUMNS)
    researcher_columns = _model_columns(Researcher, alias)[0]
    institution_columns = _model_columns(Institution, alias)[0]
    selected = ", ".join(
        [f'r."{column}"' for column in researcher_columns]
        + [f'i."{column}"' for column in institution_columns]
    )
    alternate_score = _BEST_ALTERNATE_SCORE_SQL.format(names="kept.alternate_names", query="%s")
    # The ORM's ranking (_best_first): the same functions on the same columns, so the same
    # floats. A name borne by several records is scored once, and word_similarity (at most 1)
    # only for the names whose similarity + 1 reaches `bound`: the lowest full score of the
    # `offset + limit` names of highest similarity. Those names' records alone are that many
    # records scoring `bound` or more (a record scores at least its name's score), so a name
    # below it cannot reach the page ("ko ko": 78 of 1,548 names). Records with alternate
    # names (few) are scored whole, as before.
    sql = f"""
        WITH matched AS MATERIALIZED ({candidates}),
        kept AS MATERIALIZED (
            SELECT id, name_normalized, alternate_names, cited_by_count FROM matched
            WHERE (%s::bigint IS NULL OR last_known_institution_id = %s::bigint)
            AND (NOT %s OR orcid IS NOT NULL) AND (NOT %s OR claimed_by_id IS NOT NULL)
        ),
        name_similarity AS MATERIALIZED (
            SELECT name_normalized, similarity(name_normalized, %s) AS name_similarity
            FROM (SELECT DISTINCT name_normalized FROM kept) AS distinct_name
        ),
        bound AS MATERIALIZED (
            SELECT min(name_similarity + word_similarity(%s, name_normalized)) AS score
            FROM (
                SELECT name_normalized, name_similarity FROM name_similarity
                ORDER BY name_similarity DESC LIMIT %s
            ) AS most_similar
        ),
        name_scored AS MATERIALIZED (
            SELECT name_normalized,
                   name_similarity + word_similarity(%s, name_normalized) AS score
            FROM name_similarity
            -- real + real, rounded as the score is: never below it.
            WHERE name_similarity + real '1' >= (SELECT score FROM bound)
        ),
        ranked AS MATERIALIZED (
            SELECT id, name_score, exact_name, cited_by_count FROM (
                SELECT kept.id, name_scored.score AS name_score, kept.name_normalized,
                       kept.cited_by_count
                FROM kept JOIN name_scored USING (name_normalized)
                WHERE cardinality(kept.alternate_names) = 0
                UNION ALL
                SELECT kept.id,
                       greatest(similarity(kept.name_normalized, %s)
                                + word_similarity(%s, kept.name_normalized), {alternate_score}),
                       kept.name_normalized, kept.cited_by_count
                FROM kept WHERE cardinality(kept.alternate_names) IS DISTINCT FROM 0
            ) AS scored
            CROSS JOIN LATERAL (
                SELECT CASE WHEN scored.name_normalized = %s THEN 1 ELSE 0 END AS exact_name
            ) AS exact
            ORDER BY name_score DESC, exact_name DESC, cited_by_count DESC, id
            LIMIT %s OFFSET %s
        )
        SELECT ranked.name_score, ranked.exact_name, (SELECT count(*) FROM kept), {selected}
        FROM ranked
        JOIN researchers_researcher r ON r.id = ranked.id
        LEFT JOIN researchers_institution i ON i.id = r.last_known_institution_id
        ORDER BY ranked.name_score DESC, ranked.exact_name DESC, ranked.cited_by_count DESC,
                 ranked.id
    """
    params = [
        *candidate_params,
        institution_id,
        institution_id,
        with_orcid,
        claimed,
        normalized_query,
        normalized_query,
        offset + limit,
        normalized_query,
        normalized_query,
        normalized_query,
        normalized_query,
        normalized_query,
        normalized_query,
        limit,
        offset,
    ]
    return sql, params


def researchers_name_page(
    query: str,
    *,
    offset: int,
    limit: int,
    institution_id: int | None = None,
    with_orcid: bool = False,
    claimed: bool = False,
) -> NamePage:
    """The public researchers whose name or an alternate name is like `query` (the matches of
    researchers_matching_name), narrowed to an institution, to records with an ORCID iD or to
    claimed records when asked, best match first; the `limit` from `offset`, and how many
    matched. One query."""
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query or not _BIGINT_MIN <= (institution_id or 0) <= _BIGINT_MAX:
        # An institution id past bigint is nobody's (the ORM's filter says so too, and the
        # statement's ::bigint would fail on it).
        return NamePage(researchers=[], total=0)
    alias = read_alias()
    sql, params = _page_statement(
        normalized_query,
        institution_id=institution_id,
        with_orcid=with_orcid,
        claimed=claimed,
        offset=offset,
        limit=limit,
        alias=alias,
    )
    with connections[alias].cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    researcher_count = len(_model_columns(Researcher, alias)[0])
    researchers = []
    for row in rows:
        name_score, exact_name, _total = row[:3]
        researcher = _instance(Researcher, alias, list(row[3 : 3 + researcher_count]))
        institution_values = list(row[3 + researcher_count :])
        researcher.last_known_institution = (
            _instance(Institution, alias, institution_values)
            if researcher.last_known_institution_id is not None
            else None
        )
        researcher.name_score = name_score
        researcher.exact_name = exact_name
        researchers.append(researcher)
    return NamePage(researchers=researchers, total=rows[0][2] if rows else 0)
