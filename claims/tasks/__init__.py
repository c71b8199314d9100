"""Celery tasks for claims: thin wrappers that look things up by id and call a service.

Each is idempotent: the checks leave a claim that is no longer pending alone, a trust refresh
writes only what changed. (Notification emails are the notifications app's tasks.)
Celery's autodiscovery imports this package; the task names stay "claims.tasks.<name>".

- checks:        a claim's automatic checks (queued by claims.services.checks_queue)
- trust:         trust score refreshes (queued by claims.services.trust_refresh; daily by beat)
- orcid_imports: the sweep of ORCID imports whose message was lost (the import is ingest's)
"""

from __future__ import annotations

from .checks import claim_checks_owed_send, claim_checks_run
from .orcid_imports import orcid_imports_owed_send
from .trust import researchers_trust_refresh, researchers_trust_refresh_claimed

__all__ = [
    "claim_checks_owed_send",
    "claim_checks_run",
    "orcid_imports_owed_send",
    "researchers_trust_refresh",
    "researchers_trust_refresh_claimed",
]
