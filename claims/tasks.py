"""Celery tasks for claims: thin wrappers that look things up by id and call claims.services.

Each is idempotent: the checks leave a claim that is no longer pending alone, a trust refresh
writes only what changed, and a notification already marked as emailed is not sent again.
"""

from __future__ import annotations

import logging
import smtplib

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.utils import timezone

from researchers.models import Researcher

from . import services
from .models import Notification
from .trust import researchers_trust_refresh as trust_refresh

logger = logging.getLogger(__name__)


# The checks read a few rows and write a few; a minute is generous and keeps a stuck database
# call from holding a worker.
@shared_task(time_limit=60)
def claim_checks_run(claim_id: int) -> None:
    claim = services.claim_checks_run(claim_id=claim_id)
    if claim is None:
        logger.info("claim %s is gone; nothing to check", claim_id)


# One set-based statement per call; large id lists come from imports and merges.
@shared_task(time_limit=10 * 60)
def researchers_trust_refresh(researcher_ids: list[int], include_coauthors: bool = False) -> int:
    if include_coauthors:
        return services.researchers_trust_refresh_with_coauthors(researcher_ids=researcher_ids)
    return trust_refresh(researcher_ids=researcher_ids)


@shared_task(time_limit=30 * 60)
def researchers_trust_refresh_claimed() -> int:
    """Periodic (beat, daily): account age is a trust input, so claimed records are rescored
    each day even when nothing else changed."""
    ids = list(Researcher.objects.filter(claimed_by__isnull=False).values_list("id", flat=True))
    return trust_refresh(researcher_ids=ids)


# SMTP hiccups are retried with backoff; a minute per attempt is far more than one email needs.
@shared_task(
    autoretry_for=(smtplib.SMTPException, ConnectionError),
    retry_backoff=True,
    max_retries=5,
    time_limit=60,
)
def notification_email_send(notification_id: int) -> None:
    notification = Notification.objects.select_related("user").filter(pk=notification_id).first()
    if notification is None or notification.emailed_at or not notification.user.email:
        return
    context = {
        "notification": notification,
        "user": notification.user,
        "url": f"{settings.SITE_URL.rstrip('/')}{notification.url}" if notification.url else "",
    }
    subject = render_to_string("claims/email/notification_subject.txt", context).strip()
    text = render_to_string("claims/email/notification.txt", context)
    html = render_to_string("claims/email/notification.html", context)
    message = EmailMultiAlternatives(subject=subject, body=text, to=[notification.user.email])
    message.attach_alternative(html, "text/html")
    message.send()
    # Marked after sending: a worker dying in between sends it twice rather than never.
    Notification.objects.filter(pk=notification.pk, emailed_at__isnull=True).update(
        emailed_at=timezone.now()
    )
