"""Reads the public pages compose from several apps: the profile's record with its graph
count, the cached profile's state, the home page's counts and the topic page's researchers.

The profile's statements join researchers' and graph's tables, so they live here, above both,
and not in either app.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db.models import Exists, OuterRef, QuerySet

from bzpeer.db import (
    Converters,
    fetchone_without_health_check,
    field_converters,
    instance_from_row,
    read_alias,
)
from discovery.models import ResearcherAiScore, ai_score_label
from graph.models import CloseCollaboratorsCount
from publications.models import (
    Authorship,
    ResearcherNovelty,
    Topic,
    Work,
    WorkTopic,
    percentile_label,
)
from publications.selectors import researcher_citations_from, researcher_citations_sql
from researchers.cv_display import cv_headings
from researchers.models import CVEntry, Institution, Researcher
from researchers.selectors import CV_ORDER_SQL, CV_ROW_COLUMNS, researchers_public

SITE_COUNTS_SECONDS = 300


def site_counts() -> dict[str, int]:
    """Counts for the home page, cached: a COUNT(*) over a million works is not free."""
    counts = cache.get("site-counts")
    if counts is None:
        counts = {
            "researchers": researchers_public().count(),
            "works": Work.objects.count(),
            "topics": Topic.objects.count(),
            "institutions": Institution.objects.count(),
        }
        cache.set("site-counts", counts, SITE_COUNTS_SECONDS)
    return counts


def researchers_in_topic(topic: Topic, *, limit: int = 24) -> QuerySet[Researcher]:
    """The most cited researchers with a work in this topic."""
    in_topic = WorkTopic.objects.filter(topic=topic, work=OuterRef("work"))
    return (
        researchers_public()
        .filter(
            Exists(Authorship.objects.filter(researcher=OuterRef("pk")).filter(Exists(in_topic)))
        )
        .select_related("last_known_institution")
        .order_by("-cited_by_count", "id")[:limit]
    )


_CV = CVEntry._meta.db_table
# The CV's shown entries, as one JSON array in the profile's own row: the CV costs no query of
# its own, whatever its length (the unique (researcher, source, source_key) index finds them).
_CV_JSON_SQL = f"""(
  SELECT json_agg(json_build_object({", ".join(f"'{name}', e.{name}" for name in CV_ROW_COLUMNS)})
                  ORDER BY {", ".join(f"e.{term.strip()}" for term in CV_ORDER_SQL.split(","))})
  FROM {_CV} e WHERE e.researcher_id = r.id AND NOT e.hidden
)"""
# What the cached page and its ETag must change with when the CV does: hiding an entry moves
# no updated_at (an UPDATE of one flag), so the ids and flags themselves are digested.
_CV_FINGERPRINT_SQL = f"""(
  SELECT md5(string_agg(e.id::text || ':' || e.hidden::text || ':' || e.updated_at::text, ','
                        ORDER BY e.id))
  FROM {_CV} e WHERE e.researcher_id = r.id
)"""

# The record's own columns the profile shows (the trust breakdown, a JSON document, is not
# read), then what the statement joins or computes, in the order of _PROFILE_SQL's columns.
_PROFILE_FIELDS = (
    "id", "slug", "display_name", "tagline", "alternate_names", "orcid", "openalex_id",
    "homepage", "links", "open_to_collaborate", "trust_score", "verification_level",
    "claimed_by_id", "works_count", "cited_by_count", "h_index", "i10_index", "topics_count",
    "followers_count", "citations_by_year", "last_known_institution_id", "merged_into_id",
    "updated_at", "stated_works_count", "stated_cited_by_count", "stated_h_index",
    "stated_i10_index", "stated_two_year_mean_citedness", "stated_figures_source",
    "stated_figures_as_of",
)  # fmt: skip
_PROFILE_EXTRAS = (
    "close_collaborators_count", "last_known_institution_name", "merged_into_slug",
    "novelty_percentile", "ai_score_value", "stated_institution_id", "stated_institution_name",
    "stated_institution_source", "cv_json", "citations_json",
)  # fmt: skip

# Raw SQL on purpose, like the page state below: this runs for every profile page, and the
# ORM's compiling of the joined query cost more than PostgreSQL's answering it.
_PROFILE_SQL = f"""
SELECT {", ".join(f"r.{name}" for name in _PROFILE_FIELDS)},
       coalesce(c.close_collaborators_count, 0) AS close_collaborators_count,
       i.name AS last_known_institution_name, m.slug AS merged_into_slug,
       n.percentile AS novelty_percentile, ais.score AS ai_score_value,
       stated.institution_id AS stated_institution_id, stated.name AS stated_institution_name,
       stated.source AS stated_institution_source,
       {_CV_JSON_SQL} AS cv_json,
       {researcher_citations_sql("r.id")} AS citations_json
FROM researchers_researcher r
LEFT JOIN researchers_institution i ON i.id = r.last_known_institution_id
-- Without an OpenAlex institution: the current position another source states (ORCID's CV).
LEFT JOIN LATERAL (
  SELECT a.institution_id, ai.name, a.source
  FROM researchers_affiliation a JOIN researchers_institution ai ON ai.id = a.institution_id
  WHERE a.researcher_id = r.id AND a.end_year IS NULL AND a.source <> 'openalex'
  ORDER BY a.start_year DESC NULLS LAST, a.id DESC LIMIT 1
) stated ON r.last_known_institution_id IS NULL
LEFT JOIN researchers_researcher m ON m.id = r.merged_into_id
LEFT JOIN {CloseCollaboratorsCount._meta.db_table} c ON c.researcher_id = r.id
LEFT JOIN {ResearcherNovelty._meta.db_table} n ON n.researcher_id = r.id
LEFT JOIN {ResearcherAiScore._meta.db_table} ais ON ais.researcher_id = r.id
WHERE r.slug = %s
"""


def _researcher_from_row(row: tuple[Any, ...]) -> Researcher:
    """The Researcher of a _PROFILE_SQL row, as Researcher.objects.raw() built it (the fields
    read through their from_db_value, the other fields deferred, the extras set as attributes),
    without raw()'s working out of the columns on every call: that cost twice the query."""
    alias = read_alias()
    names, order, converters = _profile_init(alias)
    researcher = instance_from_row(
        Researcher, alias, names, [row[index] for index in order], converters
    )
    for name, value in zip(_PROFILE_EXTRAS, row[len(_PROFILE_FIELDS) :], strict=True):
        setattr(researcher, name, value)
    return researcher


@functools.cache
def _profile_init(alias: str) -> tuple[list[str], list[int], Converters]:
    """What Model.from_db() wants of a _PROFILE_SQL row, found once as raw() found it every
    time: the fields' names in the model's order (from_db reads values in that order), the
    row's column for each, and (position, [(converter, expression)]) for the fields that have
    converters (the JSON fields)."""
    fields = [
        field for field in Researcher._meta.concrete_fields if field.attname in _PROFILE_FIELDS
    ]
    names = [field.attname for field in fields]
    if len(names) != len(_PROFILE_FIELDS):
        raise LookupError(f"not Researcher fields: {set(_PROFILE_FIELDS) - set(names)}")
    order = [_PROFILE_FIELDS.index(name) for name in names]
    return names, order, field_converters(Researcher, fields, alias)


def researcher_for_profile(slug: str) -> Researcher | None:
    """The record behind /researchers/<slug>/ with what the page shows: its institution comes
    joined (last_known_institution is set, with its id and name; without one,
    `stated_institution` is the current position another source states, with
    `stated_institution_source`), and for a merged record
    `merged_into_slug` names the survivor to redirect to. `cv` holds the CV's headings
    (researchers.cv_display), hidden entries left out, read in the same statement.

    Usually the request's first query, so it skips the health check's round trip (see
    bzpeer.db.fetchone_without_health_check)."""
    row = fetchone_without_health_check(_PROFILE_SQL, [slug])
    if row is None:
        return None
    researcher = _researcher_from_row(row)
    if researcher.last_known_institution_id is not None:
        researcher.last_known_institution = Institution(
            pk=researcher.last_known_institution_id,
            name=researcher.last_known_institution_name,  # type: ignore[attr-defined]  # from _PROFILE_SQL
        )
    else:
        researcher.last_known_institution = None
    stated_id = researcher.stated_institution_id  # type: ignore[attr-defined]  # from _PROFILE_SQL
    researcher.stated_institution = (  # type: ignore[attr-defined]
        Institution(pk=stated_id, name=researcher.stated_institution_name)  # type: ignore[attr-defined]
        if stated_id is not None
        else None
    )
    # Who cites the record (issue 25, item 3), read in the same statement.
    researcher.citations = researcher_citations_from(researcher.citations_json)  # type: ignore[attr-defined]
    researcher.cv = cv_headings(researcher.cv_json or ())  # type: ignore[attr-defined]  # from _PROFILE_SQL
    # "61%", or "" when the data is too thin (publications.services.novelty).
    researcher.novelty_label = percentile_label(researcher.novelty_percentile)  # type: ignore[attr-defined]  # from _PROFILE_SQL
    # "48", or "" without a model or recent works (discovery.ai_score), in the same statement.
    researcher.ai_score_label = ai_score_label(researcher.ai_score_value)  # type: ignore[attr-defined]  # from _PROFILE_SQL
    return researcher


@dataclass(frozen=True, slots=True)
class ProfilePageState:
    """What decides whether a cached profile page is still the page: the record's id, whether
    it was merged away, and every field the page shows that can change without updated_at
    moving (counts kept by SQL updates, the trust score, the claim, the CV's entries)."""

    researcher_id: int
    merged_into_id: int | None
    fields: tuple[Any, ...]


# Raw SQL on purpose: this runs for every cached page served, and compiling the equivalent ORM
# query cost more than everything else such a request does (about 1 ms of its 1.5).
_PROFILE_PAGE_STATE_SQL = f"""
SELECT r.id, r.merged_into_id, r.updated_at, r.works_count, r.cited_by_count, r.h_index,
       r.i10_index, r.topics_count, r.followers_count, c.close_collaborators_count,
       r.trust_score, r.verification_level, r.claimed_by_id, {_CV_FINGERPRINT_SQL} AS cv,
       n.percentile AS novelty_percentile, ais.score AS ai_score_value
FROM researchers_researcher r
LEFT JOIN {CloseCollaboratorsCount._meta.db_table} c ON c.researcher_id = r.id
LEFT JOIN {ResearcherNovelty._meta.db_table} n ON n.researcher_id = r.id
LEFT JOIN {ResearcherAiScore._meta.db_table} ais ON ais.researcher_id = r.id
WHERE r.slug = %s
"""


def researcher_profile_page_state(slug: str) -> ProfilePageState | None:
    """The first query of a cached page's request, and often its only one, so it skips the
    connection health check's round trip (bzpeer.db.fetchone_without_health_check)."""
    row = fetchone_without_health_check(_PROFILE_PAGE_STATE_SQL, [slug])
    if row is None:
        return None
    return ProfilePageState(researcher_id=row[0], merged_into_id=row[1], fields=tuple(row[2:]))
