"""Import throughput for /metrics (bzpeer.metrics asks this at each scrape).

Counted from the import runs' own counters in the database rather than in the worker's memory:
import workers run on other machines, where no scrape of this site would see their counts.
rate(bzpeer_import_records_total[5m]) is the records per second the whole fleet imports.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count, Sum
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from publications.models import ImportRun

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
