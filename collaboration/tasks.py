"""Celery tasks for collaboration: thin, they take ids and call collaboration.services.

- invitations_expire:       hourly (beat): pending invitations past 30 days become expired
- message_emails_send_due:  every minute (beat): claims the due "unread messages" emails (and
                            those claimed 5 minutes ago whose task never took them: a lost
                            message) and queues one message_email_send per participant after
                            the claim commits
- message_email_send:       renders and sends one of those emails
- account_exports_delete_expired: hourly (beat): deletes the exports whose link has expired
- account_export_build:     builds one "download my data" export (queued after its request
                            commits)
- account_exports_owed_build: every five minutes (beat): builds whose message was lost

Idempotent: the expiry is a conditional UPDATE, and each email is claimed by a conditional
UPDATE before its task is queued and taken by another before it is sent, so overlapping sweeps
and a task delivered twice never send one twice.
"""

from __future__ import annotations

import smtplib

from celery import shared_task

from . import services


@shared_task(name="collaboration.tasks.invitations_expire", time_limit=5 * 60)
def invitations_expire() -> int:
    return services.invitations_expire()


# The sweep runs every minute; a run that took longer than that would overlap the next one
# for nothing (the claim keeps them apart, but the work would be repeated).
@shared_task(name="collaboration.tasks.message_emails_send_due", time_limit=55)
def message_emails_send_due() -> int:
    return services.message_emails_send_due(send=message_email_send.delay)


# SMTP hiccups are retried with backoff; a minute per attempt is far more than one email needs.
@shared_task(
    name="collaboration.tasks.message_email_send",
    autoretry_for=(smtplib.SMTPException, ConnectionError),
    retry_backoff=True,
    max_retries=5,
    time_limit=60,
)
def message_email_send(participant_id: int) -> bool:
    return services.message_email_send(participant_id=participant_id)


# Reads every table about one user: seconds for the busiest account; ten minutes would mean a
# database in trouble, and the export stays pending for a new request to replace.
@shared_task(name="collaboration.tasks.account_export_build", time_limit=10 * 60)
def account_export_build(export_id: int) -> bool:
    return services.account_export_build(export_id=export_id)


@shared_task(name="collaboration.tasks.account_exports_delete_expired", time_limit=5 * 60)
def account_exports_delete_expired() -> int:
    return services.account_exports_delete_expired()


# Every five minutes (beat): pending exports whose build message was lost.
@shared_task(name="collaboration.tasks.account_exports_owed_build", time_limit=5 * 60)
def account_exports_owed_build() -> int:
    return services.account_exports_owed_build()
