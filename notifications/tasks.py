"""Celery tasks of notifications: thin, they take ids and call notifications.services.

Each is safe to run twice: an email is claimed by a conditional UPDATE of emailed_at before it
is sent, so a task delivered again, or two digest runs at once, never send an item twice.
"""

from __future__ import annotations

import logging
import smtplib

from celery import shared_task

from notifications.selectors import users_with_digest_due

# Modules, not names: the services queue these tasks and import this module, so whichever of
# the two is imported first finds the other half-built; attributes are read at call time.
from notifications.services import digest as digest_services
from notifications.services import notifications as notification_services

logger = logging.getLogger(__name__)

# SMTP hiccups are retried with backoff; a minute per attempt is far more than one email needs.
_MAIL_ERRORS = (smtplib.SMTPException, ConnectionError)


@shared_task(
    name="notifications.tasks.notification_email_send",
    autoretry_for=_MAIL_ERRORS,
    retry_backoff=True,
    max_retries=5,
    time_limit=60,
)
def notification_email_send(notification_id: int) -> None:
    if not notification_services.notification_email_deliver(notification_id=notification_id):
        logger.info("notification %s: no email (gone, sent, or not wanted now)", notification_id)


@shared_task(
    name="notifications.tasks.notification_digest_send",
    autoretry_for=_MAIL_ERRORS,
    retry_backoff=True,
    max_retries=5,
    time_limit=60,
)
def notification_digest_send(user_id: int) -> None:
    digest_services.notification_digest_send(user_id=user_id)


# Daily, by beat: one task per user with something waiting, so one slow mailbox holds up
# nobody else. Listing ids is quick (a partial index); five minutes is ample.
@shared_task(name="notifications.tasks.notification_digests_queue", time_limit=5 * 60)
def notification_digests_queue() -> int:
    queued = 0
    for user_id in users_with_digest_due().values_list("pk", flat=True).iterator():
        notification_digest_send.delay(user_id)
        queued += 1
    logger.info("daily notification digests queued for %s users", queued)
    return queued
