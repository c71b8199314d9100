"""Email throughput for /metrics (bzpeer.metrics asks this at each scrape): notifications
emailed, by delivery (immediately, or in the daily digest), counted from the database so the
mail workers of every machine count. rate(bzpeer_notification_emails_total[1h]) is the
sending rate; the digest backlog is what the daily run still has to send, and the unfinished
digest deliveries (both digests, by digest) what their runs still have to send or hold.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count, Q
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from .models import DigestDelivery, Notification


class EmailThroughputCollector(Collector):
    def collect(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily]:
        # One pass over the notifications table per scrape; scrape it every minute or slower.
        sent = (
            Notification.objects.filter(emailed_at__isnull=False)
            .values_list("email_delivery")
            .annotate(n=Count("id"))
        )
        emails = CounterMetricFamily(
            "bzpeer_notification_emails",
            "Notifications emailed, by delivery (immediately, daily digest).",
            labels=["delivery"],
        )
        for delivery, count in sent:
            emails.add_metric([delivery], count)
        yield emails
        # Partial index notification_digest_due_idx: small, whatever the table's size.
        backlog = Notification.objects.filter(
            Q(email_delivery="daily", emailed_at__isnull=True)
        ).count()
        due = GaugeMetricFamily(
            "bzpeer_notification_digest_backlog",
            "Notifications waiting for the next daily digest.",
        )
        due.add_metric([], backlog)
        yield due
        # Partial index digest_delivery_pending_idx: only unfinished rows.
        unfinished = (
            DigestDelivery.objects.filter(finished_at__isnull=True)
            .values_list("category")
            .annotate(n=Count("id"))
        )
        deliveries = GaugeMetricFamily(
            "bzpeer_digest_deliveries_unfinished",
            "Digest deliveries planned and not finished (to send, or held by a run), by digest.",
            labels=["digest"],
        )
        for category, count in unfinished:
            deliveries.add_metric([category], count)
        yield deliveries
