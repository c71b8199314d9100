"""The shared writer: upserts one batch of plain records with set-based SQL.

Each entity kind is staged with COPY into a temporary table and merged with one
INSERT ... ON CONFLICT per table, built by staging.UpsertTable, so a batch of thousands of
records costs a handful of statements, not a query per record. Foreign keys are resolved by
joins on external ids inside PostgreSQL. A content hash on every row lets an unchanged record
cost nothing. One module per entity: topics, sources, institutions, researchers, works (with
their authorships and topics). Works come from any source: identity.py says when two records
are one work, merge.py what the work shows, authors.py who a byline names, bylines.py writes
bylines, topics and versions.

Preconditions: the caller holds a transaction (the staging tables drop on commit) and has
removed duplicates of the same external id from the batch.
"""

from __future__ import annotations

from .absorb import work_references_move
from .authors import resolve_name_only_authors
from .institutions import upsert_institution_refs, write_institutions
from .listed_by import listings_prune
from .researchers import researcher_slug, upsert_researcher_refs, write_researchers
from .sources import upsert_source_refs, write_sources
from .staging import Warning_, WriteResult, ids_by_key
from .topics import upsert_topic_refs, write_topics
from .works import PreparedWorks, prepare_works, work_key, write_work_references, write_works

__all__ = [
    "PreparedWorks",
    "Warning_",
    "WriteResult",
    "ids_by_key",
    "listings_prune",
    "prepare_works",
    "resolve_name_only_authors",
    "work_key",
    "researcher_slug",
    "upsert_institution_refs",
    "upsert_researcher_refs",
    "upsert_source_refs",
    "upsert_topic_refs",
    "write_institutions",
    "write_researchers",
    "write_sources",
    "write_topics",
    "write_work_references",
    "work_references_move",
    "write_works",
]
