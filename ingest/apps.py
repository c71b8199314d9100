from __future__ import annotations

from django.apps import AppConfig


class IngestConfig(AppConfig):
    """The import pipeline: runs, chunks fanned out to Celery workers, batches, and the
    follow-up of what an import changed (metrics, trust, coauthor edges, cached pages).

    It sits above graph and claims because it calls their services after each batch. The
    records it reads and writes (ImportRun, ImportChunk, ImportIssue, works, researchers) and
    the readers, mappers and the set-based writer belong to publications."""

    name = "ingest"
