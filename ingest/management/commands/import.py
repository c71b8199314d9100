"""python manage.py import SOURCE PATH... [--sync] | --orcid ID... | --doi DOI... | --arxiv-query Q

One command for every source (ingest.sources): openalex, orcid, arxiv,
crossref, bibtex. Files are planned into chunks and fanned out to the Celery workers (or run
here with --sync), with a progress bar; records fetched from an API are imported batch by batch.
`import openalex` is import_openalex (same runs, same guarantees).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser
from kombu.exceptions import OperationalError as BrokerError
from tqdm import tqdm

from ingest import services, tasks
from ingest.management.commands.import_openalex import Command as OpenAlexCommand
from ingest.models import ImportRun
from ingest.openalex.snapshot import SnapshotPathError
from ingest.records import OPENALEX
from ingest.sources import SOURCES, SourcePathError, UnknownSource

# Command option -> the registry's fetcher name.
_FETCH_OPTIONS = ("orcid", "doi", "arxiv_query")


class Command(OpenAlexCommand):
    help = (
        "Import records of a source: files or folders (openalex, orcid, arxiv, crossref, "
        "bibtex), or records fetched by identifier (--orcid, --doi, --arxiv-query; --query for "
        "an OpenAlex works filter)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("source", choices=sorted(SOURCES), help="Where the records come from.")
        super().add_arguments(parser)
        parser.add_argument("--orcid", nargs="+", help="ORCID iDs whose records to fetch (orcid).")
        parser.add_argument(
            "--doi", nargs="+", help="DOIs whose Crossref records to fetch (crossref)."
        )
        parser.add_argument("--arxiv-query", help="An arXiv API search query (arxiv).")

    def handle(self, *args: Any, **options: Any) -> None:
        source: str = options["source"]
        fetch = [(name, options[name]) for name in _FETCH_OPTIONS if options.get(name)]
        if source == OPENALEX and not fetch:
            return super().handle(*args, **options)
        paths: list[str] = options["paths"]
        if options["query"]:
            raise CommandError("--query is an OpenAlex works filter: use it with openalex")
        if bool(paths) == bool(fetch) or len(fetch) > 1:
            raise CommandError("give either PATHs or one of --orcid, --doi, --arxiv-query")
        try:
            if fetch:
                option, raw = fetch[0]
                values = [raw] if isinstance(raw, str) else list(raw)
                run = services.import_fetch_run_create(source=source, option=option, values=values)
            else:
                option, values = "", []
                run, skipped = services.import_source_run_create(
                    source=source, paths=paths, chunk_records=options["chunk_lines"]
                )
                for note in skipped:
                    self.stderr.write(f"skipped {note}")
        except (SourcePathError, SnapshotPathError, UnknownSource) as exc:
            raise CommandError(str(exc)) from exc
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
                if option:
                    run = services.import_fetch_process(
                        run_id=run.pk,
                        source=source,
                        option=option,
                        values=values,
                        on_progress=progress.update,
                    )
                else:
                    run = services.import_run_process(run_id=run.pk, on_progress=progress.update)
                if not options["defer_graph"]:
                    self._edges_here()
            else:
                run = self._fan_out(run, source, option, values, progress)
        except KeyboardInterrupt:
            progress.close()
            raise CommandError(
                f"interrupted; import run #{run.pk} is marked failed (--sync) or goes on on the "
                "workers. Run the command again to finish: what was stored is recognised."
            ) from None
        except Exception as exc:
            progress.close()
            run.refresh_from_db()
            if not run.is_finished:
                services.import_run_fail(run_id=run.pk, error=repr(exc))
            raise CommandError(f"import run #{run.pk} failed: {run.error or exc!r}") from exc
        finally:
            progress.close()
        self._summary(run)

    def _fan_out(
        self, run: ImportRun, source: str, option: str, values: list[str], progress: tqdm
    ) -> ImportRun:
        if option:
            try:
                tasks.import_fetch.delay(run.pk, source, option, values)
            except BrokerError as exc:
                services.import_run_fail(run_id=run.pk, error=f"broker unreachable: {exc}")
                raise CommandError(
                    f"cannot reach the Celery broker: {exc}; use --sync to import here"
                ) from exc
            return self._poll(run, progress)
        return self._run_on_workers(run, None, progress)
