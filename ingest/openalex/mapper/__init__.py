"""OpenAlex JSON -> plain records. Pure functions, no database.

Handles the schemas OpenAlex has served since 2021: the legacy `host_venue` and singular
`last_known_institution`, and the 2023+/2025 `primary_location`, `topics`,
`last_known_institutions` and `affiliations`. fields reads JSON safely and normalises ids;
works maps works; entities maps authors, institutions, sources and topics; lines maps one
line of a file, of whatever kind, for the import pipeline.
"""

from __future__ import annotations

from .entities import email_domain_from, map_author, map_institution, map_source, map_topic
from .fields import (
    ENTITY_PREFIXES,
    SUPPORTED_ENTITIES,
    entity_of_id,
    normalize_doi,
    normalize_orcid,
    normalize_ror,
    openalex_short_id,
    short_id_or_raw,
    type_name,
)
from .lines import line_mapper
from .works import abstract_from_inverted_index, arxiv_id_from, map_work

__all__ = [
    "ENTITY_PREFIXES",
    "SUPPORTED_ENTITIES",
    "abstract_from_inverted_index",
    "arxiv_id_from",
    "email_domain_from",
    "entity_of_id",
    "line_mapper",
    "map_author",
    "map_institution",
    "map_source",
    "map_topic",
    "map_work",
    "normalize_doi",
    "normalize_orcid",
    "normalize_ror",
    "openalex_short_id",
    "short_id_or_raw",
    "type_name",
]
