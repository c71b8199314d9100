"""python manage.py import SOURCE PATH... [--sync] | --query F | --orcid ID... | --doi DOI... |
--arxiv-query Q

One command for every source (ingest.sources): openalex, orcid, arxiv, crossref, bibtex. Files
are planned into chunks and fanned out to the Celery workers (or run here with --sync), with a
progress bar; records fetched from an API (an OpenAlex works filter, ORCID iDs, DOIs, an arXiv
query) are imported batch by batch. `import_openalex ...` is `import openalex ...`.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.urls import reverse
from kombu.exceptions import OperationalError as BrokerError
from tqdm import tqdm

from graph.services import coauthor_edges_drain
from ingest import services, tasks
from ingest.models import ImportRun
from ingest.openalex.client import OpenAlexClient, OpenAlexError
from ingest.openalex.snapshot import SnapshotPathError
from ingest.records import OPENALEX
from ingest.sources import SOURCES, SourcePathError, UnknownSource

POLL_SECONDS = 0.5
NO_WORKER_HINT_SECONDS = 15
# Command option -> the registry's fetcher name.
_FETCH_OPTIONS = ("orcid", "doi", "arxiv_query")


class Command(BaseCommand):
    help = (
        "Import records of a source: files or folders (openalex, orcid, arxiv, crossref, "
        "bibtex), or records fetched from its API (--query for an OpenAlex works filter, "
        "--orcid, --doi, --arxiv-query)."
    )

    def add_source_argument(self, parser: CommandParser) -> None:
        parser.add_argument("source", choices=sorted(SOURCES), help="Where the records come from.")

    def add_arguments(self, parser: CommandParser) -> None:
        self.add_source_argument(parser)
        parser.add_argument(
            "paths",
            nargs="*",
            help="Files or folders (e.g. openalex-snapshot/data/works, a folder of ORCID records).",
        )
        parser.add_argument(
            "--sync", action="store_true", help="Import in this process instead of on the workers."
        )
        parser.add_argument(
            "--query", help="An OpenAlex works filter, e.g. authorships.author.id:A5023888391."
        )
        parser.add_argument("--orcid", nargs="+", help="ORCID iDs whose records to fetch (orcid).")
        parser.add_argument(
            "--doi", nargs="+", help="DOIs whose Crossref records to fetch (crossref)."
        )
        parser.add_argument("--arxiv-query", help="An arXiv API search query (arxiv).")
        parser.add_argument(
            "--chunk-lines", type=int, help="Records per chunk task (default IMPORT_CHUNK_LINES)."
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
        source: str = options["source"]
        run, fetch = self._run_create(source, options)
        self.stdout.write(
            f"Import run #{run.pk} ({source}): {run.records_total} records in "
            f"{run.chunks_total} chunk(s)"
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
                run = self._run_here(run, source, fetch, progress)
                if not options["defer_graph"]:
                    self._edges_here()
            else:
                run = self._run_on_workers(run, source, fetch, progress)
        except KeyboardInterrupt:
            progress.close()
            raise CommandError(
                f"interrupted; import run #{run.pk} is marked failed (--sync) or goes on on the "
                "workers. Run the command again to finish: what was stored is recognised."
            ) from None
        except CommandError:
            raise
        except Exception as exc:
            progress.close()
            run.refresh_from_db()
            if not run.is_finished:
                services.import_run_fail(run_id=run.pk, error=repr(exc))
            raise CommandError(f"import run #{run.pk} failed: {run.error or exc!r}") from exc
        finally:
            progress.close()
        self._summary(run)

    def _run_create(
        self, source: str, options: dict[str, Any]
    ) -> tuple[ImportRun, tuple[str, list[str]] | None]:
        """The planned run, and (fetcher option, values) when it fetches from an API: "query"
        for an OpenAlex works filter."""
        paths: list[str] = options["paths"]
        fetch = [(name, options[name]) for name in _FETCH_OPTIONS if options.get(name)]
        if options["query"]:
            if source != OPENALEX:
                raise CommandError("--query is an OpenAlex works filter: use it with openalex")
            fetch.append(("query", options["query"]))
        if bool(paths) == bool(fetch) or len(fetch) > 1:
            raise CommandError("give either PATHs or one of --query, --orcid, --doi, --arxiv-query")
        try:
            if not fetch:
                run, skipped = services.import_source_run_create(
                    source=source, paths=paths, chunk_records=options["chunk_lines"]
                )
                for note in skipped:
                    self.stderr.write(f"skipped {note}")
                return run, None
            option, raw = fetch[0]
            values = [raw] if isinstance(raw, str) else list(raw)
            if option == "query":
                return services.import_query_run_create(query=raw), (option, values)
            run = services.import_fetch_run_create(source=source, option=option, values=values)
            return run, (option, values)
        except (SourcePathError, SnapshotPathError, UnknownSource) as exc:
            raise CommandError(str(exc)) from exc

    def _run_here(
        self, run: ImportRun, source: str, fetch: tuple[str, list[str]] | None, progress: tqdm
    ) -> ImportRun:
        if fetch is None:
            return services.import_run_process(run_id=run.pk, on_progress=progress.update)
        option, values = fetch
        try:
            if option == "query":
                with OpenAlexClient() as client:
                    return services.import_query_process(
                        run_id=run.pk, query=values[0], client=client, on_progress=progress.update
                    )
            return services.import_fetch_process(
                run_id=run.pk,
                source=source,
                option=option,
                values=values,
                on_progress=progress.update,
            )
        except OpenAlexError as exc:
            services.import_run_fail(run_id=run.pk, error=str(exc))
            raise CommandError(str(exc)) from exc
        except BaseException as exc:
            # Never left running: the stalled-run sweep would hand a run stopped here (an
            # interrupt) to the workers. Run the command again to import it.
            services.import_run_fail(
                run_id=run.pk, error=f"stopped in the importing process: {exc!r}"
            )
            raise

    def _edges_here(self) -> None:
        """The coauthor edges of what --sync imported, updated here rather than left waiting
        for a worker that may not run (the drain a worker would do, the same service)."""
        self.stderr.write("updating the coauthor edges of the imported works ...")
        handled = coauthor_edges_drain()
        self.stderr.write(f"coauthor edges: {handled} bylines and records applied")

    def _run_on_workers(
        self, run: ImportRun, source: str, fetch: tuple[str, list[str]] | None, progress: tqdm
    ) -> ImportRun:
        try:
            if fetch is None:
                tasks.import_run_enqueue(run.pk)
            elif fetch[0] == "query":
                tasks.import_query.delay(run.pk, fetch[1][0])
            else:
                tasks.import_fetch.delay(run.pk, source, fetch[0], fetch[1])
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
            issues = reverse("admin:ingest_importissue_changelist")
            self.stdout.write(
                f"{run.failed_count} record(s) rejected; reasons in the admin at "
                f"{issues}?run__id__exact={run.pk}"
            )
