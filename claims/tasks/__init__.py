"""Celery tasks for claims: thin wrappers that look things up by id and call a service.

Each is idempotent: the checks leave a claim that is no longer pending alone, a trust refresh
writes only what changed, and a notification already marked as emailed is not sent again.
Celery's autodiscovery imports this package; the task names stay "claims.tasks.<name>".

- checks:        a claim's automatic checks (queued by claims.services.checks_queue)
- notifications: a notification's email (queued by claims.services.notifications)
- trust:         trust score refreshes (queued by claims.services.trust_refresh; daily by beat)
"""

from __future__ import annotations

from .checks import claim_checks_run
from .notifications import notification_email_send
from .trust import researchers_trust_refresh, researchers_trust_refresh_claimed

__all__ = [
    "claim_checks_run",
    "notification_email_send",
    "researchers_trust_refresh",
    "researchers_trust_refresh_claimed",
]
