"""The sweep of ORCID imports whose task message was lost (the import itself is ingest's task,
ingest.tasks.orcid_record_import, queued by name from claims.services.orcid_import)."""

from __future__ import annotations

from celery import shared_task

from claims.services import orcid_import


# Every five minutes (beat): ORCID imports whose task never took them.
@shared_task(name="claims.tasks.orcid_imports_owed_send", time_limit=5 * 60)
def orcid_imports_owed_send() -> int:
    return orcid_import.orcid_imports_owed_send()
