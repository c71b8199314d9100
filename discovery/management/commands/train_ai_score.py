"""Train the AI Score's model and rewrite every forecast and score (discovery.ai_score)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from discovery.ai_score import services


class Command(BaseCommand):
    help = (
        "Train the AI Score's model on the works with three years of citations, back-test it on "
        "the latest of those years, and rewrite every work's forecast and every researcher's "
        "score; see docs/ai-score.md."
    )

    def add_arguments(self, parser) -> None:  # noqa: ANN001
        parser.add_argument("--as-of-year", type=int, default=None, help="'Now' (this year).")
        parser.add_argument("--rounds", type=int, default=services.ROUNDS, help="Boosting rounds.")

    def handle(self, *args, as_of_year: int | None, rounds: int, **options) -> None:  # noqa: ANN002, ANN003
        result = services.ai_score_train(as_of_year=as_of_year, rounds=rounds)
        if not result.trained:
            self.stdout.write(f"AI Score v{result.version}: no model: {result.gap}")
            return
        self.stdout.write(
            f"AI Score v{result.version}: {result.labelled_works} works with three years of "
            f"citations; back-test Spearman {result.spearman} (baselines "
            f"{', '.join(f'{k} {v}' for k, v in result.baselines.items())}); "
            f"{result.works_forecast} works forecast, {result.researchers_scored} researchers "
            f"in {result.seconds:.1f}s"
        )
