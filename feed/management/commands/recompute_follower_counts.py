"""`python manage.py recompute_follower_counts [--dry-run]`

Compares every stored follower count (researchers, topics, institutions) with the follow rows
and stores the recomputed counts, set-based (feed.services.follower_counts). Prints how many
records of each kind were off and how many were fixed; with --dry-run it only reports. Beat
runs the same service daily (feed.tasks.follower_counts_recompute).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from feed import services


class Command(BaseCommand):
    help = "Recompute the stored follower counts from the follow rows and report any drift."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dry-run", action="store_true", help="Report the drift without fixing it."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        drift = services.follower_counts_recompute(fix=not options["dry_run"])
        for kind, off in drift.off.items():
            self.stdout.write(f"{kind}: {off} off, {drift.fixed[kind]} fixed")
        verdict = "no drift" if not drift.total_off else f"{drift.total_off} off"
        self.stdout.write(f"follower counts: {verdict}, {drift.total_fixed} fixed")
