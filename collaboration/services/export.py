"""'Download my data' (issue 28, item 9): a JSON export of everything bzpeer holds about a user.

- account_export_request: the account page's button. Replaces the user's earlier exports with a
  pending one and queues collaboration.tasks.account_export_build after commit. One request per
  ACCOUNT_EXPORT_REQUEST_COOLDOWN (a few minutes) per user: building one reads every table.
- account_export_build: the task's work: the document from collaboration.selectors.export,
  stored in the row (the database, never public storage). Idempotent: only a pending export is
  built, claimed by a conditional UPDATE.
- account_exports_delete_expired: the hourly sweep (beat) deletes the documents whose link has
  expired, and exports left pending a day (a task that never ran).
- account_export_link_token / account_export_for_download: the download link carries a signed,
  timestamped token naming the export and its owner; it works for ACCOUNT_EXPORT_LINK_SECONDS
  and only for the signed-in owner (anyone else, or an old or forged token, is a 404).
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core import signing
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import Q
from django.http import Http404
from django.utils import timezone

from bzpeer.errors import RateLimited
from bzpeer.queueing import task_enqueue_on_commit
from bzpeer.users.models import User
from collaboration.models import AccountExport, AccountExportStatus
from collaboration.selectors.export import account_data

logger = logging.getLogger(__name__)

BUILD_TASK = "collaboration.tasks.account_export_build"
# Signing salt (not a secret): keeps these tokens from passing for any other signed value.
SIGNING_SALT = "collaboration.account-export"
ACCOUNT_EXPORT_REQUEST_COOLDOWN = timedelta(minutes=5)


def account_export_request(*, user: User) -> AccountExport:
    """A new export of `user`'s data, pending; built by a task after the transaction commits."""
    with transaction.atomic():
        # The user's row lock keeps two clicks from making two exports.
        User.objects.select_for_update().filter(pk=user.pk).first()
        latest = AccountExport.objects.filter(user=user).order_by("-created_at").first()
        if latest is not None and latest.created_at > timezone.now() - (
            ACCOUNT_EXPORT_REQUEST_COOLDOWN
        ):
            if latest.status == AccountExportStatus.PENDING:
                return latest
            wait = latest.created_at + ACCOUNT_EXPORT_REQUEST_COOLDOWN - timezone.now()
            raise RateLimited(
                "Your last export is only a few minutes old; ask again later.",
                retry_after=max(1, int(wait.total_seconds())),
            )
        AccountExport.objects.filter(user=user).delete()
        export = AccountExport.objects.create(user=user)
        task_enqueue_on_commit(BUILD_TASK, export.pk)
    logger.info("account export %s requested by user %s", export.pk, user.pk)
    return export


def account_export_build(*, export_id: int) -> bool:
    """Build a pending export; False when it is gone or no longer pending."""
    export = (
        AccountExport.objects.filter(pk=export_id, status=AccountExportStatus.PENDING)
        .select_related("user")
        .first()
    )
    if export is None:
        return False
    document = json.dumps(
        account_data(export.user), cls=DjangoJSONEncoder, ensure_ascii=False, indent=1
    ).encode()
    updated = AccountExport.objects.filter(pk=export_id, status=AccountExportStatus.PENDING).update(
        content=document, status=AccountExportStatus.READY, finished_at=timezone.now()
    )
    logger.info("account export %s built: %d bytes", export_id, len(document))
    return bool(updated)


def account_export_expires_at(export: AccountExport) -> datetime | None:
    if export.finished_at is None:
        return None
    return export.finished_at + timedelta(seconds=settings.ACCOUNT_EXPORT_LINK_SECONDS)


def account_export_link_token(export: AccountExport) -> str:
    """The signed token of the download link (it says which export and whose)."""
    return signing.dumps({"export": export.pk, "user": export.user_id}, salt=SIGNING_SALT)


def account_export_for_download(*, user: User, token: str) -> AccountExport:
    """The ready export the token names, if it is `user`'s and the link has not expired;
    otherwise Http404 (an expired, forged or someone else's link says nothing more)."""
    try:
        payload = signing.loads(
            token, salt=SIGNING_SALT, max_age=settings.ACCOUNT_EXPORT_LINK_SECONDS
        )
    except signing.BadSignature as error:  # SignatureExpired is one
        raise Http404("No such export.") from error
    if not isinstance(payload, dict) or payload.get("user") != user.pk:
        raise Http404("No such export.")
    export_id = payload.get("export")
    if not isinstance(export_id, int):
        raise Http404("No such export.")
    export = AccountExport.objects.filter(
        pk=export_id, user=user, status=AccountExportStatus.READY
    ).first()
    expires_at = account_export_expires_at(export) if export is not None else None
    if export is None or expires_at is None or expires_at <= timezone.now():
        raise Http404("No such export.")
    return export


def account_exports_delete_expired() -> int:
    """Delete the exports whose link has expired and those pending for a day; returns how many."""
    now = timezone.now()
    deleted, _ = AccountExport.objects.filter(
        Q(finished_at__lte=now - timedelta(seconds=settings.ACCOUNT_EXPORT_LINK_SECONDS))
        | Q(status=AccountExportStatus.PENDING, created_at__lte=now - timedelta(days=1))
    ).delete()
    if deleted:
        logger.info("deleted %d expired account exports", deleted)
    return deleted


# A pending export not built this long after it was asked for is owed: its task message was lost
# (the broker down or emptied). A build takes seconds; the day-old ones are deleted instead.
EXPORT_OWED_AFTER = timedelta(minutes=5)


def account_exports_owed_build(*, limit: int = 200) -> int:
    """Queue again the builds of pending exports that are owed (a periodic sweep); how many.
    A build that finds its export no longer pending does nothing, so a late task costs a read."""
    now = timezone.now()
    owed = list(
        AccountExport.objects.filter(
            status=AccountExportStatus.PENDING,
            created_at__lte=now - EXPORT_OWED_AFTER,
            created_at__gt=now - timedelta(days=1),
        )
        .order_by("created_at")
        .values_list("pk", flat=True)[:limit]
    )
    for export_id in owed:
        task_enqueue_on_commit(BUILD_TASK, export_id)
    if owed:
        logger.info("account exports owed: %d builds queued again (first %s)", len(owed), owed[:20])
    return len(owed)
