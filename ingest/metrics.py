"""Import throughput for /metrics (bzpeer.metrics asks this at each scrape).

Counted from the import runs' own counters in the database rather than in the worker's memory:
import workers run on other machines, where no scrape of this site would see their counts.
rate(bzpeer_import_records_total[5m]) is the records per second the whole fleet imports.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count, Min, Sum
from django.utils import timezone
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from ingest.models import ImportRun

from .models import PendingFollowUp

_OUTCOMES = ("created", "updated", "unchanged", "failed")


class ImportThroughputCollector(Collector):
    def collect(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily]:
        # The runs table has a row per run (a few a day), so these are two small statements.
        totals = ImportRun.objects.aggregate(
            **{outcome: Sum(f"{outcome}_count") for outcome in _OUTCOMES},
            chunks=Sum("chunks_done"),
        )
        records = CounterMetricFamily(
            "bzpeer_import_records",
            "Records the imports have written, by outcome (all runs).",
            labels=["outcome"],
        )
        for outcome in _OUTCOMES:
            records.add_metric([outcome], totals[outcome] or 0)
        yield records
        chunks = CounterMetricFamily(
            "bzpeer_import_chunks_done", "Import chunks finished (all runs)."
        )
        chunks.add_metric([], totals["chunks"] or 0)
        yield chunks
        runs = GaugeMetricFamily("bzpeer_import_runs", "Import runs by status.", labels=["status"])
        by_status = dict(
            ImportRun.objects.values_list("status")
            .annotate(n=Count("id"))
            .values_list("status", "n")
        )
        for status in ImportRun.Status.values:
            runs.add_metric([status], by_status.get(status, 0))
        yield runs
        # How far the researchers' metrics and trust lag the imported works: batches whose
        # follow-up waits for the drain, and the age of the oldest (0 when none waits).
        backlog = PendingFollowUp.objects.aggregate(batches=Count("id"), oldest=Min("created_at"))
        pending = GaugeMetricFamily(
            "bzpeer_import_follow_up_pending_batches",
            "Committed import batches whose researchers wait for the follow-up drain.",
        )
        pending.add_metric([], backlog["batches"])
        yield pending
        age = GaugeMetricFamily(
            "bzpeer_import_follow_up_oldest_seconds",
            "Age of the oldest batch waiting for the follow-up drain (0 when none waits).",
        )
        oldest = backlog["oldest"]
        age.add_metric([], (timezone.now() - oldest).total_seconds() if oldest else 0.0)
        yield age
