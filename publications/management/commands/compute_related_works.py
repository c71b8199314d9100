"""Compute every work's related works from scratch (publications.services.related_works)."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from tqdm import tqdm

from publications import services


class Command(BaseCommand):
    help = (
        "Compute every work's related works (co-citation and bibliographic coupling) from "
        "scratch: the citation degrees, then one job per range of work ids, here or on the "
        "Celery workers (--on-workers); then the works whose citations changed meanwhile."
    )

    def add_arguments(self, parser) -> None:  # noqa: ANN001
        parser.add_argument(
            "--on-workers",
            action="store_true",
            help="Queue the ranges on the Celery workers (the graph queue) and wait for them.",
        )
        parser.add_argument(
            "--range-size",
            type=int,
            default=services.related_works_full.RANGE_SIZE,
            help=(
                f"Work ids per job on average ({services.related_works_full.RANGE_SIZE}); the ids "
                "are cut by estimated cost, so ranges of old, often cited works are shorter."
            ),
        )
        parser.add_argument("--no-progress", action="store_true", help="No progress bar.")

    def handle(self, *args, on_workers: bool, range_size: int, no_progress: bool, **kw):
        if range_size < 1:
            self.stderr.write("--range-size must be at least 1")
            raise SystemExit(2)
        bar = tqdm(unit="range", disable=no_progress, desc="related works", leave=True)

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        try:
            if on_workers:
                result = services.related_works_compute_on_workers(
                    range_size=range_size, on_progress=progress
                )
            else:
                result = services.related_works_compute_all(
                    range_size=range_size, on_progress=progress
                )
        finally:
            bar.close()
        drained = services.related_works_drain()
        rows = "" if result.rows < 0 else f"{result.rows} related works, "
        self.stdout.write(
            f"{rows}{result.ranges} ranges in {result.seconds:.1f}s; "
            f"{drained} works refreshed from the queue afterwards"
        )
