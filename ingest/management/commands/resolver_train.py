"""python manage.py resolver_train [--sample N] [--output DIR]: retrain the name resolver's
pairwise model on this site's own identified mentions (OpenAlex ids, ORCID iDs), their
identifiers hidden (ingest.resolution.training), and write the model's two files (by default
over the shipped ones in ingest/resolution/; the threshold is chosen on held-out people)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from ingest.resolution import model as pair_model
from ingest.resolution.training import identified_authorships, labelled_pairs


class Command(BaseCommand):
    help = "Retrain the name resolver's model on this site's identified mentions."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sample", type=int, default=50_000, help="identified mentions")
        parser.add_argument("--seed", type=int, default=pair_model.SEED)
        parser.add_argument("--output", type=Path, default=pair_model.MODEL_DIR)

    def handle(self, *args: Any, **options: Any) -> None:
        with connection.cursor() as cursor:
            ids = identified_authorships(cursor, limit=options["sample"], seed=options["seed"])
            pairs = labelled_pairs(cursor.cursor, ids)
        if sum(pairs.labels) < 50 or len(pairs.labels) - sum(pairs.labels) < 50:
            raise CommandError(
                f"too few pairs to learn from ({len(pairs.labels)}, {sum(pairs.labels)} same "
                "person): import more identified records first"
            )
        output: Path = options["output"]
        figures = pair_model.train(
            pairs.rows,
            pairs.labels,
            pairs.groups,
            pairs.eligible,
            version=f"site-{options['sample']}-{options['seed']}",
            model_file=output / pair_model.MODEL_FILE.name,
            meta_file=output / pair_model.META_FILE.name,
        )
        for key, value in figures.items():
            if key != "features":
                self.stdout.write(f"{key}: {value}")
