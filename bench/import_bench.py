"""The import benchmark: `make bench`, or `python -m bench.import_bench --works N`.

In one run it measures, on a synthetic OpenAlex works snapshot:

1. end to end: `manage.py import_openalex CORPUS --sync` in a subprocess, on empty tables;
2. the same command again on the same corpus (every record unchanged);
3. raw COPY: the rows the import produced, dumped with COPY TO, loaded back with COPY FROM
   into the same (truncated) tables with the same indexes and constraints.

It prints the figures and the machine they were measured on, and writes them to
bench-data/last-report.json. Nothing here asserts a duration: these are figures, not a test.

It works in a database of its own (bzpeer_bench by default, created and migrated when
missing) and truncates its data tables, so it never touches the dev or test database.
The corpus is cached under bench-data/, keyed by its parameters.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import psycopg
from psycopg import sql

from bench import smoke
from bench.harness import (
    BOOKKEEPING_TABLES,
    DATA_DIR,
    DATA_TABLES,
    DERIVED_TABLES,
    REPO_ROOT,
    Corpus,
    bench_environment,
    checkpoint,
    corpus_prepare,
    say,
    shown,
    stored_columns,
    table_counts,
    truncate,
)
from bench.measure import (
    BUSY_SHARE,
    MachineCpu,
    ProcessFigures,
    backend_cpu_seconds,
    busy_note,
    git_revision,
    machine_describe,
    other_imports_running,
    other_work_share,
    run_measured,
)

DEFAULT_DATABASE = "bzpeer_bench"
MEMORY_BUDGET_MB = 500  # peak memory of the import process, whatever the file size
TARGET_RATIO = 0.25  # the end-to-end rate is at least a quarter of the raw COPY rate


@dataclass
class ImportFigures:
    process: ProcessFigures
    works_per_second: float
    rows_per_second: float
    run_counts: dict[str, int]


@dataclass
class CopyFigures:
    seconds: float
    works_per_second: float
    rows_per_second: float
    bytes: int
    cpu_seconds: float  # the loading session's PostgreSQL backend and this process
    other_work_share: float


def import_measure(
    *,
    corpus: Corpus,
    env: dict[str, str],
    connection: psycopg.Connection,
    rows: int | None,
    label: str,
    work_dir: Path,
) -> ImportFigures:
    command = [
        sys.executable,
        str(REPO_ROOT / "manage.py"),
        "import_openalex",
        corpus.path,
        "--sync",
        "--no-progress",
        # The import alone: the coauthor edges' drain is the graph benchmark's to measure.
        "--defer-graph",
    ]
    log = work_dir / f"{label}.log"
    figures = run_measured(command, env=env, log=log)
    run = connection.execute(
        """
        SELECT status, read_count, created_count, updated_count, unchanged_count, failed_count
        FROM publications_importrun ORDER BY id DESC LIMIT 1
        """
    ).fetchone()
    if run is None or run[0] != "succeeded":
        raise SystemExit(f"the {label} import did not succeed ({run}); see {log}")
    rows = rows if rows is not None else sum(table_counts(connection).values())
    return ImportFigures(
        process=figures,
        works_per_second=round(corpus.works / figures.seconds),
        rows_per_second=round(rows / figures.seconds),
        run_counts=dict(
            zip(("read", "created", "updated", "unchanged", "failed"), run[1:], strict=True)
        ),
    )


def copy_measure(
    *, corpus: Corpus, connection: psycopg.Connection, rows: int, work_dir: Path
) -> CopyFigures:
    """Dump the imported rows, truncate, and time loading them back with COPY."""
    dump_folder = work_dir / "copy-dump"
    shutil.rmtree(dump_folder, ignore_errors=True)
    dump_folder.mkdir(parents=True)
    columns = {
        table: stored_columns(connection, table) for table in (*DATA_TABLES, *DERIVED_TABLES)
    }
    for table in (*DATA_TABLES, *DERIVED_TABLES):
        statement = sql.SQL("COPY {} ({}) TO STDOUT (FORMAT binary)").format(
            sql.Identifier(table), sql.SQL(", ").join(map(sql.Identifier, columns[table]))
        )
        with (
            (dump_folder / f"{table}.copy").open("wb") as output,
            connection.cursor().copy(statement) as copy,
        ):
            for block in copy:
                output.write(block)
    truncate(connection, (*DATA_TABLES, *BOOKKEEPING_TABLES))
    backend_pid = connection.info.backend_pid
    own_before = backend_cpu_seconds(backend_pid) + time.process_time()
    machine = MachineCpu().start()
    started = time.perf_counter()
    with connection.transaction():
        for table in (*DATA_TABLES, *DERIVED_TABLES):
            statement = sql.SQL("COPY {} ({}) FROM STDIN (FORMAT binary)").format(
                sql.Identifier(table), sql.SQL(", ").join(map(sql.Identifier, columns[table]))
            )
            with (
                (dump_folder / f"{table}.copy").open("rb") as source,
                connection.cursor().copy(statement) as copy,
            ):
                while block := source.read(1 << 20):
                    copy.write(block)
    seconds = time.perf_counter() - started
    machine.stop()
    own = backend_cpu_seconds(backend_pid) + time.process_time() - own_before
    size = sum(p.stat().st_size for p in dump_folder.iterdir())
    # Leave the sequences past the copied ids, as an import would have.
    for table in DATA_TABLES:
        connection.execute(
            sql.SQL(
                "SELECT setval(pg_get_serial_sequence({}, 'id'), coalesce(max(id), 0) + 1, false) FROM {}"
            ).format(sql.Literal(table), sql.Identifier(table))
        )
    shutil.rmtree(dump_folder)
    return CopyFigures(
        seconds=round(seconds, 2),
        works_per_second=round(corpus.works / seconds),
        rows_per_second=round(rows / seconds),
        bytes=size,
        cpu_seconds=round(own, 1),
        other_work_share=other_work_share(
            busy_seconds=machine.busy_seconds, own_seconds=own, wall_seconds=seconds
        ),
    )


@dataclass
class Report:
    measured_at: str
    revision: str
    machine: dict[str, object]
    corpus: Corpus
    import_settings: dict[str, str]
    rows: dict[str, int]
    end_to_end: ImportFigures
    raw_copy: CopyFigures
    ratio: float
    meets_target: bool
    rerun_unchanged: ImportFigures | None = None
    notes: list[str] = field(default_factory=list)


def report_print(report: Report) -> None:
    machine, corpus = report.machine, report.corpus
    e2e, copy, rerun = report.end_to_end, report.raw_copy, report.rerun_unchanged
    total_rows = sum(report.rows.values())
    say()
    say(f"bzpeer import benchmark, {report.measured_at}, revision {report.revision}")
    say(f"machine     {machine['cpu']}, {machine['cores']} cores, {machine['memory_gb']} GB RAM")
    say(f"            PostgreSQL {machine['postgresql']}, Python {machine['python']}")
    say(f"            {', '.join(f'{k}={v}' for k, v in machine['postgresql_settings'].items())}")  # type: ignore[union-attr]
    say(
        f"corpus      {corpus.works:,} works, {corpus.distinct_authors:,} authors, {corpus.authorships:,} authorships"
    )
    say(
        f"            {corpus.mean_authors_per_work} authors per work on average, at most {corpus.max_authors_per_work}; "
        f"{corpus.works_with_100_or_more_authors} works with 100 or more"
    )
    say(f"            {corpus.bytes / 2**20:,.0f} MB in {corpus.files} file(s) at {corpus.path}")
    say(f"settings    {', '.join(f'{k}={v}' for k, v in report.import_settings.items())}")
    say(
        f"rows        {total_rows:,}: "
        + ", ".join(f"{k.split('_', 1)[1]} {v:,}" for k, v in report.rows.items())
    )
    say()
    say(
        f"end to end  {e2e.works_per_second:>8,} works/s {e2e.rows_per_second:>10,} rows/s "
        f"{e2e.process.seconds:>8.1f} s   peak RSS {e2e.process.peak_rss_mb:,.0f} MB "
        f"(process tree {e2e.process.peak_tree_rss_mb:,.0f} MB)"
        + busy_note(e2e.process.other_work_share)
    )
    if rerun:
        say(
            f"unchanged   {rerun.works_per_second:>8,} works/s {'':>17} "
            f"{rerun.process.seconds:>8.1f} s   peak RSS {rerun.process.peak_rss_mb:,.0f} MB"
            f"   (second run: {rerun.run_counts['unchanged']:,} unchanged, {rerun.run_counts['updated']:,} updated)"
            + busy_note(rerun.process.other_work_share)
        )
    say(
        f"raw COPY    {copy.works_per_second:>8,} works/s {copy.rows_per_second:>10,} rows/s {copy.seconds:>8.1f} s"
        + busy_note(copy.other_work_share)
    )
    say()
    verdict = "meets" if report.meets_target else "misses"
    say(
        f"end to end / raw COPY = {report.ratio:.2f}: {verdict} the target of at least {TARGET_RATIO:.2f}"
    )
    say()
    say(
        f"CPU of the end-to-end import: Python {e2e.process.cpu_user_seconds + e2e.process.cpu_system_seconds:,.0f} s, "
        f"its PostgreSQL sessions {e2e.process.database_cpu_seconds:,.0f} s, over {e2e.process.seconds:,.0f} s"
    )
    say("where its database session spent the time (sampled):")
    for label, share in e2e.process.database_profile:
        say(f"  {share:5.1f}%  {label}")
    for note in report.notes:
        say(f"note: {note}")


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], prog="python -m bench.import_bench"
    )
    parser.add_argument(
        "--works", type=int, default=200_000, help="works in the synthetic corpus (default 200000)"
    )
    parser.add_argument(
        "--authors", type=int, help="author ids the works draw from (default works / 2)"
    )
    parser.add_argument("--seed", type=int, default=7, help="corpus seed (default 7)")
    parser.add_argument("--files", type=int, default=1, help="snapshot part files (default 1)")
    parser.add_argument(
        "--gzip", action="store_true", help="gzip the part files, as OpenAlex ships them"
    )
    parser.add_argument(
        "--database", default=DEFAULT_DATABASE, help="bench database name (default bzpeer_bench)"
    )
    parser.add_argument(
        "--no-rerun", action="store_true", help="skip the second, all-unchanged import"
    )
    parser.add_argument(
        "--redis-db",
        type=int,
        default=11,
        help="Redis database for the import's cache and task queue (default 11, apart from dev's)",
    )
    smoke.add_argument(parser)
    options = parser.parse_args(argv)
    if options.smoke:
        smoke.apply(parser, options, works=smoke.WORKS, database=smoke.default_database("import"))
        smoke.begin(options.database, redis_db=options.redis_db)
    return options


def _phases_run(
    url: str, env: dict[str, str], work_dir: Path, corpus: Corpus, options: argparse.Namespace
) -> tuple[dict, ImportFigures, dict[str, int], ImportFigures | None, CopyFigures]:
    """On emptied tables: the import end to end, the same import again (all unchanged) unless
    --no-rerun, and the raw COPY of the rows it produced. Returns the machine, the import's
    figures, its rows per table, the rerun's figures and the COPY's."""
    with psycopg.connect(url, autocommit=True) as connection:
        machine = machine_describe(connection)
        truncate(connection, (*DATA_TABLES, *BOOKKEEPING_TABLES))
        say(f"end to end: import_openalex {corpus.path} --sync ...")
        end_to_end = import_measure(
            corpus=corpus,
            env=env,
            connection=connection,
            rows=None,
            label="import",
            work_dir=work_dir,
        )
        rows = table_counts(connection)
        rerun = None
        if not options.no_rerun:
            checkpoint(connection)
            say("the same corpus again (every record unchanged) ...")
            rerun = import_measure(
                corpus=corpus,
                env=env,
                connection=connection,
                rows=sum(rows.values()),
                label="rerun",
                work_dir=work_dir,
            )
        say("raw COPY of the same rows into the same tables ...")
        raw_copy = copy_measure(
            corpus=corpus, connection=connection, rows=sum(rows.values()), work_dir=work_dir
        )
        if table_counts(connection) != rows:
            raise SystemExit("the raw COPY did not load the rows the import produced")
    return machine, end_to_end, rows, rerun, raw_copy


def _notes_add(report: Report, others: list[str]) -> None:
    """Memory over budget, a busy machine, other imports meanwhile."""
    end_to_end, raw_copy, rerun = report.end_to_end, report.raw_copy, report.rerun_unchanged
    if end_to_end.process.peak_tree_rss_mb >= MEMORY_BUDGET_MB:
        report.notes.append(f"peak memory of the import is over the {MEMORY_BUDGET_MB} MB budget")
    shares = [end_to_end.process.other_work_share, raw_copy.other_work_share]
    if rerun:
        shares.append(rerun.process.other_work_share)
    if max(shares) >= BUSY_SHARE:
        report.notes.append(
            "other processes used a share of the CPUs during a phase (flagged above): its figure "
            "is low by about that much, and the ratio is off if the phases differ"
        )
    if others:
        report.notes.append(
            "other imports or benchmarks ran on this machine meanwhile, so these figures are "
            "disturbed: " + "; ".join(others)
        )


def main(argv: Sequence[str] | None = None) -> int:
    options = _arguments(argv)
    authors = options.authors or max(1, options.works // 2)

    url, env, work_dir = bench_environment(options.database, redis_db=options.redis_db)
    corpus = corpus_prepare(
        works=options.works,
        authors=authors,
        seed=options.seed,
        files=options.files,
        gzipped=options.gzip,
    )

    import_settings = {
        name: env.get(name, "default") for name in ("IMPORT_BATCH_SIZE", "IMPORT_CHUNK_LINES")
    }
    others_before = other_imports_running()
    machine, end_to_end, rows, rerun, raw_copy = _phases_run(url, env, work_dir, corpus, options)
    others = sorted(set(others_before) | set(other_imports_running()))

    ratio = end_to_end.works_per_second / raw_copy.works_per_second
    report = Report(
        measured_at=datetime.now(UTC).isoformat(timespec="seconds"),
        revision=git_revision(),
        machine=machine,
        corpus=corpus,
        import_settings=import_settings,
        rows=rows,
        end_to_end=end_to_end,
        raw_copy=raw_copy,
        ratio=round(ratio, 3),
        meets_target=ratio >= TARGET_RATIO,
        rerun_unchanged=rerun,
    )
    _notes_add(report, others)
    report_print(report)
    payload = json.dumps(asdict(report), indent=2) + "\n"
    (work_dir / "last-report.json").write_text(payload)
    if options.database == DEFAULT_DATABASE and not options.smoke:
        (DATA_DIR / "last-report.json").write_text(payload)
    say(f"\nwritten to {shown(work_dir / 'last-report.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
