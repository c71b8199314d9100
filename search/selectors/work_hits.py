"""What a row of the works tab shows besides its headlines: the work, its source and its first
authors, read in SQL written out and turned into model instances here.

The ORM's two statements for them (the works with their source, then a window over the
authorships for the first AUTHORS_SHOWN of each) cost more in Python than in PostgreSQL: SQL
compilation, the prefetch machinery and some 120 model instances built through it were about
10 of the 15 ms a ranked page took at 200,000 works (issue 30's profile). Here the columns come
as a fragment the page's own statement selects (work_search), or in one statement of their own
(works_for_hits), and the instances are made with Model.from_db, so every column not read is
deferred as with `.only()` and loads on access instead of silently holding a default.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from django.db.models import Model

from bzpeer.db import array_literal, read_connection
from publications.models import Authorship, Source, Work
from researchers.models import Researcher

AUTHORS_SHOWN = 5
ModelT = TypeVar("ModelT", bound=Model)

# Columns of a row of results, over `w` (publications_work) and `s` (its source, LEFT JOINed as
# HIT_JOINS_SQL does): eight columns, what hit_work builds from. The authors come as one JSON
# array of [id, position, raw_name, researcher_id, slug, display_name], in byline order.
HIT_COLUMNS_SQL = f"""
    w.title, w.type, w.publication_year, w.cited_by_count, w.authors_count, w.source_id,
    s.name, s.abbreviated_name,
    (SELECT coalesce(json_agg(json_build_array(a.id, a.position, a.raw_name, a.researcher_id,
                                               p.slug, p.display_name) ORDER BY a.position), '[]')
     FROM (SELECT id, position, raw_name, researcher_id FROM publications_authorship
           WHERE work_id = w.id ORDER BY position LIMIT {AUTHORS_SHOWN}) AS a
     LEFT JOIN researchers_researcher p ON p.id = a.researcher_id) AS first_authors
"""
HIT_COLUMNS_COUNT = 9
HIT_JOINS_SQL = "LEFT JOIN publications_source s ON s.id = w.source_id"

_HITS_SQL = f"""
SELECT w.id, {HIT_COLUMNS_SQL}
FROM publications_work w {HIT_JOINS_SQL}
WHERE w.id = ANY(%s::bigint[])
"""


def _instance(model: type[ModelT], database: str, values: dict[str, Any]) -> ModelT:
    """A `model` instance loaded with `values` (by attname), its other columns deferred:
    Model.from_db takes the values in the order of the model's fields."""
    names = [f.attname for f in model._meta.concrete_fields if f.attname in values]
    return model.from_db(database, names, [values[name] for name in names])


def hit_work(database: str, work_id: int, columns: Sequence[Any]) -> Work:
    """The work of a result row from the HIT_COLUMNS_SQL columns of its row, with its source
    and `first_authorships` (a list of its first AUTHORS_SHOWN authorships, each with its
    researcher) in place."""
    title, work_type, year, cited_by_count, authors_count, source_id, name, abbreviated, authors = (
        columns
    )
    work = _instance(
        Work,
        database,
        {
            "id": work_id,
            "title": title,
            "type": work_type,
            "publication_year": year,
            "cited_by_count": cited_by_count,
            "authors_count": authors_count,
            "source_id": source_id,
        },
    )
    work.source = (
        _instance(
            Source, database, {"id": source_id, "name": name, "abbreviated_name": abbreviated}
        )
        if source_id is not None
        else None
    )
    authorships = []
    for authorship_id, position, raw_name, researcher_id, slug, display_name in authors:
        authorship = _instance(
            Authorship,
            database,
            {
                "id": authorship_id,
                "work_id": work_id,
                "position": position,
                "raw_name": raw_name,
                "researcher_id": researcher_id,
            },
        )
        authorship.researcher = (
            _instance(
                Researcher,
                database,
                {"id": researcher_id, "slug": slug, "display_name": display_name},
            )
            if researcher_id is not None
            else None
        )
        authorships.append(authorship)
    work.first_authorships = authorships  # type: ignore[attr-defined]
    return work


def works_for_hits(ids: list[int]) -> dict[int, Any]:
    """The works of a result page by id, with their source and first authors (hit_work): only
    what a result row shows. One query, whatever the number of ids."""
    connection = read_connection()
    with connection.cursor() as cursor:
        cursor.execute(_HITS_SQL, [array_literal(ids)])
        rows = cursor.fetchall()
    return {row[0]: hit_work(connection.alias, row[0], row[1:]) for row in rows}
