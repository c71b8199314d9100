"""Rebuild every coauthor edge and close-collaborators count from the authorships."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from tqdm import tqdm

from graph import services


class Command(BaseCommand):
    help = (
        "Rebuild the coauthor edges and the close-collaborators counts from scratch (new "
        "tables, swapped in together at the end), then drain the edge refreshes that queued "
        "meanwhile."
    )

    def add_arguments(self, parser) -> None:  # noqa: ANN001
        parser.add_argument("--slices", type=int, default=16, help="Researcher slices (16).")
        parser.add_argument(
            "--workers", type=int, default=2, help="Database connections building at once (2)."
        )
        parser.add_argument("--work-mem", default="1GB", help="work_mem per connection (1GB).")
        parser.add_argument("--no-progress", action="store_true", help="No progress bar.")

    def handle(self, *args, slices: int, workers: int, work_mem: str, no_progress: bool, **kw):
        if slices < 1 or workers < 1:
            self.stderr.write("--slices and --workers must be at least 1")
            raise SystemExit(2)
        # Steps: authorships, one per slice, pairs, indexes, swap, close collaborators.
        bar = tqdm(
            total=slices + 5, unit="step", disable=no_progress, desc="rebuild_graph", leave=True
        )

        def progress(step: str) -> None:
            bar.set_postfix_str(step)
            bar.update(1)

        try:
            result = services.coauthor_edges_rebuild(
                slices=slices, workers=workers, work_mem=work_mem, on_progress=progress
            )
        finally:
            bar.close()
        drained = services.coauthor_edges_drain()
        steps = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in result.step_seconds.items())
        self.stdout.write(
            f"{result.edges} coauthor edges in {result.seconds:.1f}s ({steps}); "
            f"{drained} researchers refreshed from the queue afterwards"
        )
