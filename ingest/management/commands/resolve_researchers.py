"""python manage.py resolve_researchers [--dry-run] [--limit N]: the name resolver re-run over
existing L0 records (ingest.services.researchers_rerun), merging what every byline links and
proposing the close calls to the moderators' queue."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ingest.services.researchers_rerun import researchers_rerun


class Command(BaseCommand):
    help = "Re-run the name resolver over L0 records: merge or propose to moderators."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="write nothing; report")
        parser.add_argument("--limit", type=int, default=None, help="at most N records")
        parser.add_argument("--batch", type=int, default=500)

    def handle(self, *args: Any, **options: Any) -> None:
        figures = researchers_rerun(
            dry_run=options["dry_run"], limit=options["limit"], batch=options["batch"]
        )
        verb = "would merge" if options["dry_run"] else "merged"
        self.stdout.write(
            f"{figures.records} L0 records read; {verb} {figures.merged}; "
            f"{figures.proposed} pairs proposed; {figures.refused} merges refused"
        )
        for record, into in figures.merges[:50]:
            self.stdout.write(f"  #{record} -> #{into}")
