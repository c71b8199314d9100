"""Compute every work's novelty and every researcher's median (publications.services.novelty)."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from tqdm import tqdm

from publications.services import novelty


class Command(BaseCommand):
    help = (
        "Compute every work's novelty (Wang, Veugelers and Stephan 2017: new pairs of "
        "referenced journals, weighted by their distance), its percentile in its field and "
        "year, and every researcher's median; see docs/novelty.md."
    )

    def add_arguments(self, parser) -> None:  # noqa: ANN001
        parser.add_argument("--no-progress", action="store_true", help="No progress bar.")

    def handle(self, *args, no_progress: bool, **options) -> None:  # noqa: ANN002, ANN003
        bar = tqdm(unit="year", disable=no_progress, desc="novelty", leave=True)

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        try:
            result = novelty.novelty_compute(on_progress=progress)
        finally:
            bar.close()
        self.stdout.write(
            f"{result.works} works ({result.works_with_percentile} with a percentile), "
            f"{result.researchers} researchers, {result.years} years in {result.seconds:.1f}s"
        )
