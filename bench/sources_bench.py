"""The sources benchmark: `python -m bench.sources_bench --records N` (`make bench`).

For each source other than OpenAlex (Crossref, arXiv, ORCID, BibTeX) it imports a synthetic
file of N records with `manage.py import SOURCE PATH --sync --no-progress` in a subprocess and
reports its rate beside the OpenAlex path's rate measured in the same run, with the peak memory
of the process tree and what the run counted (created, updated, failed, import issues).

Each source is measured on the same ground: the database is emptied, the OpenAlex file of N
works is imported (measured: the OpenAlex rate of that step), then the source's file (measured).
A realistic share of each source's works are OpenAlex works (same DOI, title and authors), so
the merge path runs; the report checks that exactly those joined an existing work.

The files are synthetic and deterministic, in the shape the readers take (cached under
bench-data/sources-r{N}-s{seed}-p{page}-b{bib}/), with no personal data: names from syllables,
DOIs under 10.99999/, arXiv ids 99MM.NNNNN, ORCID iDs with valid check digits in the unused
0000-0009- block. Nothing here asserts a duration: these are figures, not a test.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import psycopg
from psycopg import sql

from bench import smoke
from bench.harness import (
    DATA_DIR,
    REPO_ROOT,
    Corpus,
    bench_environment,
    checkpoint,
    corpus_prepare,
    say,
    shown,
)
from bench.import_bench import MEMORY_BUDGET_MB
from bench.measure import (
    BUSY_SHARE,
    ProcessFigures,
    busy_note,
    git_revision,
    machine_describe,
    other_imports_running,
    run_measured,
)
from bench.sources_files import (
    SourceFiles,
    files_prepare,
)
from bench.sources_world import (
    EMPTIED_APPS,
    OPENALEX,
    SOURCES,
)

# --- measuring ---------------------------------------------------------------------------------


@dataclass
class ImportStep:
    source: str
    records: int
    work_records: int
    process: ProcessFigures
    records_per_second: float
    run_counts: dict[str, int]
    issues: dict[str, int]  # by severity
    issue_reasons: list[tuple[str, int]]  # the most frequent, shortened
    works_before: int
    works_after: int
    merged_into_existing: int  # work records that joined a work already there
    expected_merged: int | None = None
    ratio_to_openalex: float | None = None
    openalex_records_per_second: float | None = None


def tables_to_empty(connection: psycopg.Connection) -> list[str]:
    rows = connection.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
    ).fetchall()
    return [name for (name,) in rows if name.startswith(EMPTIED_APPS)]


def empty(connection: psycopg.Connection, tables: Sequence[str]) -> None:
    connection.execute(
        sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(
            sql.SQL(", ").join(map(sql.Identifier, tables))
        )
    )
    checkpoint(connection)


def works_count(connection: psycopg.Connection) -> int:
    return connection.execute("SELECT count(*) FROM publications_work").fetchone()[0]  # type: ignore[index]


def import_step(
    *,
    source: str,
    path: str,
    records: int,
    work_records: int,
    env: dict[str, str],
    connection: psycopg.Connection,
    work_dir: Path,
    label: str,
) -> ImportStep:
    before = works_count(connection)
    command = [
        sys.executable,
        str(REPO_ROOT / "manage.py"),
        "import",
        source,
        path,
        "--sync",
        "--no-progress",
    ]
    log = work_dir / f"{label}.log"
    figures = run_measured(command, env=env, log=log)
    run = connection.execute(
        """
        SELECT id, status, read_count, created_count, updated_count, unchanged_count, failed_count,
               chunks_total
        FROM publications_importrun ORDER BY id DESC LIMIT 1
        """
    ).fetchone()
    if run is None or run[1] != "succeeded":
        raise SystemExit(f"the {label} import did not succeed ({run}); see {log}")
    issues: dict[str, int] = dict(
        connection.execute(
            "SELECT severity, count(*) FROM publications_importissue WHERE run_id = %s GROUP BY 1",
            [run[0]],
        ).fetchall()
    )
    reasons = connection.execute(
        """
        SELECT severity || ': ' || left(regexp_replace(reason, '[0-9]+', 'N', 'g'), 120), count(*) FROM publications_importissue
        WHERE run_id = %s GROUP BY 1 ORDER BY 2 DESC LIMIT 5
        """,
        [run[0]],
    ).fetchall()
    after = works_count(connection)
    return ImportStep(
        source=source,
        records=records,
        work_records=work_records,
        process=figures,
        records_per_second=round(records / figures.seconds, 1),
        run_counts=dict(
            zip(
                ("read", "created", "updated", "unchanged", "failed", "chunks"),
                run[2:],
                strict=True,
            )
        ),
        issues=issues,
        issue_reasons=[(reason, count) for reason, count in reasons],
        works_before=before,
        works_after=after,
        merged_into_existing=work_records - (after - before),
    )


# --- report ------------------------------------------------------------------------------------


@dataclass
class Report:
    measured_at: str
    revision: str
    machine: dict[str, object]
    records: int
    files: SourceFiles
    openalex_corpus: str
    import_settings: dict[str, str]
    openalex: list[ImportStep]  # one per source, imported just before it
    sources: list[ImportStep]
    notes: list[str] = field(default_factory=list)


def report_print(report: Report) -> None:
    machine = report.machine
    say()
    say(f"bzpeer sources benchmark, {report.measured_at}, revision {report.revision}")
    say(f"machine     {machine['cpu']}, {machine['cores']} cores, {machine['memory_gb']} GB RAM")
    say(f"            PostgreSQL {machine['postgresql']}, Python {machine['python']}")
    settings: dict[str, str] = machine["postgresql_settings"]  # type: ignore[assignment]
    say(f"            {', '.join(f'{k}={v}' for k, v in settings.items())}")
    say(
        f"files       {report.records:,} records a source under {report.files.folder}; OpenAlex {report.openalex_corpus}"
    )
    say(f"settings    {', '.join(f'{k}={v}' for k, v in report.import_settings.items())}")
    say()
    header = (
        f"{'source':<9} {'records':>8} {'works':>8} {'chunks':>6} {'seconds':>8} {'rec/s':>8} {'vs OA':>6} "
        f"{'RSS MB':>7} {'tree MB':>8} {'created':>8} {'updated':>8} {'failed':>7} "
        f"{'errors':>7} {'warnings':>8} {'merged':>7} {'expected':>8}"
    )
    say(header)
    say("-" * len(header))
    for openalex, step in zip(report.openalex, report.sources, strict=True):
        for row in (openalex, step):
            ratio = f"{row.ratio_to_openalex:.2f}" if row.ratio_to_openalex is not None else ""
            expected = f"{row.expected_merged:,}" if row.expected_merged is not None else ""
            say(
                f"{row.source:<9} {row.records:>8,} {row.work_records:>8,} "
                f"{row.run_counts.get('chunks', 0):>6,} {row.process.seconds:>8.1f} "
                f"{row.records_per_second:>8,.0f} {ratio:>6} {row.process.peak_rss_mb:>7,.0f} "
                f"{row.process.peak_tree_rss_mb:>8,.0f} {row.run_counts['created']:>8,} "
                f"{row.run_counts['updated']:>8,} {row.run_counts['failed']:>7,} "
                f"{row.issues.get('error', 0):>7,} {row.issues.get('warning', 0):>8,} {row.merged_into_existing if row.source != OPENALEX else '':>7} "
                f"{expected:>8}" + busy_note(row.process.other_work_share)
            )
    say()
    say("works: the work records the file holds; vs OA: records/s over the OpenAlex import's just")
    say("before it (same empty database); merged: work records that joined an OpenAlex work.")
    say("ORCID's warnings are expected, one per shared work: its owner's name is on the OpenAlex")
    say("byline, but that slot belongs to an OpenAlex author id without an ORCID iD.")
    for step in report.sources:
        if step.issue_reasons:
            say(
                f"{step.source} issues: " + "; ".join(f"{n:,} x {r}" for r, n in step.issue_reasons)
            )
    for note in report.notes:
        say(f"note: {note}")


def _arguments(argv: Sequence[str] | None) -> tuple[argparse.Namespace, list[str]]:
    """The options, and the sources chosen (in the order given)."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], prog="python -m bench.sources_bench"
    )
    parser.add_argument(
        "--records", type=int, default=100_000, help="records a source (default 100000)"
    )
    parser.add_argument("--seed", type=int, default=7, help="OpenAlex corpus seed (default 7)")
    parser.add_argument(
        "--page",
        type=int,
        default=1000,
        help="records a Crossref or arXiv page file (default 1000, the APIs' usual page)",
    )
    parser.add_argument(
        "--bib-per-file", type=int, default=1000, help="entries a .bib file (default 1000)"
    )
    parser.add_argument(
        "--sources",
        default=",".join(SOURCES),
        help=f"comma-separated (default {','.join(SOURCES)})",
    )
    parser.add_argument(
        "--database",
        default="bzpeer_sources_bench",
        help="bench database (default bzpeer_sources_bench)",
    )
    parser.add_argument(
        "--redis-db",
        type=int,
        default=14,
        help="Redis database for the imports' cache and task queue (default 14)",
    )
    smoke.add_argument(parser)
    options = parser.parse_args(argv)
    if options.smoke:  # 100 a source, still two pages or files each: eight imports to run
        smoke.apply(
            parser,
            options,
            records=100,
            page=50,
            bib_per_file=50,
            database=smoke.default_database("sources"),
        )
        smoke.begin(options.database, redis_db=options.redis_db)
    chosen = [s.strip() for s in options.sources.split(",") if s.strip()]
    if unknown := set(chosen) - set(SOURCES):
        parser.error(f"unknown sources: {', '.join(sorted(unknown))}")
    return options, chosen


def _imports_run(
    url: str,
    env: dict[str, str],
    work_dir: Path,
    *,
    corpus: Corpus,
    prepared: SourceFiles,
    chosen: list[str],
) -> tuple[dict, list[ImportStep], list[ImportStep]]:
    """For each source, on emptied tables: the OpenAlex file, then the source's file over it.
    Returns the machine and the OpenAlex and source steps."""
    openalex_steps: list[ImportStep] = []
    source_steps: list[ImportStep] = []
    with psycopg.connect(url, autocommit=True) as connection:
        machine = machine_describe(connection)
        tables = tables_to_empty(connection)
        for source in chosen:
            spec = prepared.files[source]
            empty(connection, tables)
            say(f"{source}: the OpenAlex file first ...")
            openalex = import_step(
                source=OPENALEX,
                path=corpus.path,
                records=corpus.works,
                work_records=corpus.works,
                env=env,
                connection=connection,
                work_dir=work_dir,
                label=f"openalex-before-{source}",
            )
            say(f"{source}: {spec.records:,} records from {spec.path} ...")
            step = import_step(
                source=source,
                path=spec.path,
                records=spec.records,
                work_records=spec.work_records,
                env=env,
                connection=connection,
                work_dir=work_dir,
                label=source,
            )
            step.expected_merged = spec.openalex_works
            step.openalex_records_per_second = openalex.records_per_second
            step.ratio_to_openalex = round(step.records_per_second / openalex.records_per_second, 3)
            openalex_steps.append(openalex)
            source_steps.append(step)
    return machine, openalex_steps, source_steps


def _notes_add(report: Report, others: list[str]) -> None:
    """What a reader of the figures must know: short reads, failures, unexpected merges,
    memory over budget, a busy machine."""
    openalex_steps, source_steps = report.openalex, report.sources
    for step in source_steps:
        if step.run_counts["read"] != step.records:
            report.notes.append(
                f"{step.source}: the run read {step.run_counts['read']:,} of {step.records:,} records"
            )
        if step.run_counts["failed"]:
            report.notes.append(
                f"{step.source}: {step.run_counts['failed']:,} records failed (see its issues)"
            )
        if step.merged_into_existing != step.expected_merged:
            report.notes.append(
                f"{step.source}: {step.merged_into_existing:,} work records joined an existing work, "
                f"{step.expected_merged:,} expected"
            )
    for step in (*openalex_steps, *source_steps):
        if step.process.peak_tree_rss_mb >= MEMORY_BUDGET_MB:
            report.notes.append(f"{step.source}: peak memory over the {MEMORY_BUDGET_MB} MB budget")
    if any(s.process.other_work_share >= BUSY_SHARE for s in (*openalex_steps, *source_steps)):
        report.notes.append(
            "other processes used a share of the CPUs during a step (flagged above): its rate is "
            "low by about that much"
        )
    if others:
        report.notes.append(
            "other imports or benchmarks ran on this machine meanwhile, so these figures are "
            "disturbed: " + "; ".join(others)
        )


def main(argv: Sequence[str] | None = None) -> int:
    options, chosen = _arguments(argv)
    url, env, work_dir = bench_environment(options.database, redis_db=options.redis_db)
    corpus = corpus_prepare(
        works=options.records,
        authors=max(1, options.records // 2),
        seed=options.seed,
        files=1,
        gzipped=False,
    )
    prepared = files_prepare(
        corpus=corpus,
        records=options.records,
        seed=options.seed,
        page=options.page,
        bib_per_file=options.bib_per_file,
    )

    others_before = other_imports_running()
    machine, openalex_steps, source_steps = _imports_run(
        url, env, work_dir, corpus=corpus, prepared=prepared, chosen=chosen
    )
    others = sorted(set(others_before) | set(other_imports_running()))

    report = Report(
        measured_at=datetime.now(UTC).isoformat(timespec="seconds"),
        revision=git_revision(),
        machine=machine,
        records=options.records,
        files=prepared,
        openalex_corpus=corpus.path,
        import_settings={
            n: env.get(n, "default") for n in ("IMPORT_BATCH_SIZE", "IMPORT_CHUNK_LINES")
        },
        openalex=openalex_steps,
        sources=source_steps,
    )
    _notes_add(report, others)
    report_print(report)
    (DATA_DIR / "sources-report.json").write_text(json.dumps(asdict(report), indent=2) + "\n")
    say(f"\nwritten to {shown(DATA_DIR / 'sources-report.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
