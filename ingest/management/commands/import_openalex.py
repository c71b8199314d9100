"""python manage.py import_openalex PATH... [--sync] | --query FILTER"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from kombu.exceptions import OperationalError as BrokerError
from tqdm import tqdm

from graph.services import coauthor_edges_drain
from ingest import services, tasks
from ingest.models import ImportRun
from ingest.openalex.client import OpenAlexClient, OpenAlexError
from ingest.openalex.snapshot import SnapshotPathError

POLL_SECONDS = 0.5
NO_WORKER_HINT_SECONDS = 15


class Command(BaseCommand):
    help = (
        "Import OpenAlex records: snapshot files or folders (JSON Lines, gzipped or not, or saved "
        "API responses), or the works matching an API filter with --query."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "paths",
            nargs="*",
            help="Snapshot files or folders (e.g. openalex-snapshot/data/works).",
        )
        parser.add_argument(
            "--sync", action="store_true", help="Import in this process instead of on the workers."
        )
        parser.add_argument(
            "--query", help="An OpenAlex works filter, e.g. authorships.author.id:A5023888391."
        )
        parser.add_argument(
            "--chunk-lines", type=int, help="Lines per chunk task (default IMPORT_CHUNK_LINES)."
        )
        parser.add_argument(
            "--no-progress", action="store_true", help="Do not draw the progress bar."
        )
        parser.add_argument(
            "--defer-graph",
            action="store_true",
            help="With --sync: leave the coauthor edges to a Celery worker (graph queue) instead "
            "of updating them in this process at the end.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        paths: list[str] = options["paths"]
        query: str | None = options["query"]
        if bool(paths) == bool(query):
            raise CommandError("give either snapshot PATHs or --query FILTER (one of them)")
        if query:
            run = services.import_query_run_create(query=query)
        else:
            try:
                run, skipped = services.import_run_create(
                    paths=paths, chunk_lines=options["chunk_lines"]
                )
            except SnapshotPathError as exc:
                raise CommandError(str(exc)) from exc
            for note in skipped:
                self.stderr.write(f"skipped {note}")
        self.stdout.write(
            f"Import run #{run.pk}: {run.records_total} lines in {run.chunks_total} chunk(s)"
        )

        progress = tqdm(
            total=run.records_total or None,
            unit="rec",
            disable=options["no_progress"],
            file=self.stderr,
            dynamic_ncols=True,
        )
        try:
            if options["sync"]:
                run = self._run_here(run, query, progress)
                if not options["defer_graph"]:
                    self._edges_here()
            else:
                run = self._run_on_workers(run, query, progress)
        except KeyboardInterrupt:
            progress.close()
            if options["sync"]:
                raise CommandError(
                    f"interrupted; import run #{run.pk} is marked failed. Run the command again "
                    "to finish: what was stored is recognised and skipped."
                ) from None
            raise CommandError(
                f"interrupted; import run #{run.pk} goes on on the workers"
            ) from None
        except Exception as exc:
            progress.close()
            run.refresh_from_db()
            raise CommandError(f"import run #{run.pk} failed: {run.error or exc!r}") from exc
        finally:
            progress.close()
        self._summary(run)

    def _run_here(self, run: ImportRun, query: str | None, progress: tqdm) -> ImportRun:
        if query:
            try:
                with OpenAlexClient() as client:
                    return services.import_query_process(
                        run_id=run.pk, query=query, client=client, on_progress=progress.update
                    )
            except OpenAlexError as exc:
                services.import_run_fail(run_id=run.pk, error=str(exc))
                raise CommandError(str(exc)) from exc
        return services.import_run_process(run_id=run.pk, on_progress=progress.update)

    def _edges_here(self) -> None:
        """The coauthor edges of what --sync imported, updated here rather than left waiting
        for a worker that may not run (the drain a worker would do, the same service)."""
        self.stderr.write("updating the coauthor edges of the imported works ...")
        handled = coauthor_edges_drain()
        self.stderr.write(f"coauthor edges: {handled} bylines and records applied")

    def _run_on_workers(self, run: ImportRun, query: str | None, progress: tqdm) -> ImportRun:
        try:
            if query:
                tasks.import_query.delay(run.pk, query)
            else:
                tasks.import_run_enqueue(run.pk)
        except BrokerError as exc:
            services.import_run_fail(run_id=run.pk, error=f"broker unreachable: {exc}")
            raise CommandError(
                f"cannot reach the Celery broker: {exc}; use --sync to import here"
            ) from exc
        return self._poll(run, progress)

    def _poll(self, run: ImportRun, progress: tqdm) -> ImportRun:
        """Show the run's progress until the workers finish it."""
        started = time.monotonic()
        hinted = False
        while True:
            run.refresh_from_db()
            progress.n = run.read_count
            progress.set_postfix(
                failed=run.failed_count, chunks=f"{run.chunks_done}/{run.chunks_total}"
            )
            progress.refresh()
            if run.is_finished:
                return run
            if (
                not hinted
                and run.read_count == 0
                and time.monotonic() - started > NO_WORKER_HINT_SECONDS
            ):
                self.stderr.write(
                    "still waiting for a Celery worker to pick the chunks up (is one running?)"
                )
                hinted = True
            time.sleep(POLL_SECONDS)

    def _summary(self, run: ImportRun) -> None:
        line = (
            f"read {run.read_count}, created {run.created_count}, updated {run.updated_count}, "
            f"unchanged {run.unchanged_count}, failed {run.failed_count}"
        )
        if run.status == ImportRun.Status.FAILED:
            raise CommandError(f"import run #{run.pk} failed: {run.error}\n{line}")
        self.stdout.write(self.style.SUCCESS(f"Import run #{run.pk} {run.status}: {line}"))
        if run.failed_count:
            self.stdout.write(
                f"{run.failed_count} record(s) rejected; reasons in the admin at "
                f"/admin/publications/importissue/?run__id__exact={run.pk}"
            )
