"""The task that emails a notification (claims.services.notifications creates them)."""

from __future__ import annotations

import smtplib

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.utils import timezone

from claims.models import Notification


# SMTP hiccups are retried with backoff; a minute per attempt is far more than one email needs.
@shared_task(
    name="claims.tasks.notification_email_send",
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
