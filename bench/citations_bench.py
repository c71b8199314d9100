"""The import with references against the same import without them (issue 25).

Two synthetic corpora of the same works (tests/support/synthetic.py, the import benchmark's
generator): one without reference lists, one where every work cites `--references` works
(mostly earlier works of the corpus, one in five outside it, so both citations and waiting
references are written). Each is imported end to end (`import openalex --sync`, the edges left
to the graph benchmark) into emptied tables of the bench database, one after the other in the
same run, and the report gives each rate, their ratio (target: at least 0.75), each peak
memory, and the rows the references made.

    python -m bench.citations_bench --works 200000 --references 35
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import psycopg

from bench import smoke
from bench.harness import (
    BOOKKEEPING_TABLES,
    DATA_DIR,
    DATA_TABLES,
    Corpus,
    bench_environment,
    corpus_prepare,
    say,
    shown,
    truncate,
)
from bench.import_bench import ImportFigures, import_measure
from bench.measure import git_revision, other_imports_running

TARGET_RATIO = 0.75
CITATION_TABLES = ("publications_citation", "publications_unresolvedreference")


def _measure(
    corpus: Corpus,
    *,
    env: dict[str, str],
    connection: psycopg.Connection,
    label: str,
    work_dir: Path,
) -> tuple[ImportFigures, dict[str, int]]:
    truncate(connection, (*DATA_TABLES, *BOOKKEEPING_TABLES, *CITATION_TABLES))
    say(f"{label}: import openalex {corpus.path} --sync ...")
    figures = import_measure(
        corpus=corpus, env=env, connection=connection, rows=None, label=label, work_dir=work_dir
    )
    counts = {
        table: connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: S608 - our table names
        for table in CITATION_TABLES
    }
    return figures, counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], prog="python -m bench.citations_bench"
    )
    parser.add_argument("--works", type=int, default=200_000, help="works (default 200000)")
    parser.add_argument(
        "--references", type=int, default=35, help="references per work (default 35)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--database", default="bzpeer_bench_citations")
    parser.add_argument("--redis-db", type=int, default=12)
    smoke.add_argument(parser)
    options = parser.parse_args(argv)
    if options.smoke:
        smoke.apply(
            parser,
            options,
            works=smoke.WORKS,
            references=5,
            database=smoke.default_database("citations"),
        )
        smoke.begin(options.database, redis_db=options.redis_db)
    authors = max(1, options.works // 2)

    url, env, work_dir = bench_environment(options.database, redis_db=options.redis_db)
    plain = corpus_prepare(
        works=options.works, authors=authors, seed=options.seed, files=1, gzipped=False
    )
    cited = corpus_prepare(
        works=options.works,
        authors=authors,
        seed=options.seed,
        files=1,
        gzipped=False,
        references=options.references,
    )
    others_before = other_imports_running()
    with psycopg.connect(url, autocommit=True) as connection:
        without, _ = _measure(
            plain, env=env, connection=connection, label="without-references", work_dir=work_dir
        )
        with_references, rows = _measure(
            cited, env=env, connection=connection, label="with-references", work_dir=work_dir
        )
    others = sorted(set(others_before) | set(other_imports_running()))
    ratio = with_references.works_per_second / without.works_per_second
    # The same ratio by CPU (the import's processes and its database sessions): on a shared
    # machine the wall-clock rates move with the others' load, the work done much less.
    cpu = {
        label: figures.process.cpu_user_seconds
        + figures.process.cpu_system_seconds
        + figures.process.database_cpu_seconds
        for label, figures in (("without", without), ("with", with_references))
    }
    report = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "revision": git_revision(),
        "works": options.works,
        "references_per_work": options.references,
        "without_references": {
            "seconds": without.process.seconds,
            "works_per_second": without.works_per_second,
            "peak_tree_rss_mb": without.process.peak_tree_rss_mb,
            "process_cpu_seconds": round(
                without.process.cpu_user_seconds + without.process.cpu_system_seconds, 1
            ),
            "database_cpu_seconds": without.process.database_cpu_seconds,
            "database_profile": without.process.database_profile,
            "other_work_share": without.process.other_work_share,
        },
        "with_references": {
            "seconds": with_references.process.seconds,
            "works_per_second": with_references.works_per_second,
            "peak_tree_rss_mb": with_references.process.peak_tree_rss_mb,
            "process_cpu_seconds": round(
                with_references.process.cpu_user_seconds
                + with_references.process.cpu_system_seconds,
                1,
            ),
            "database_cpu_seconds": with_references.process.database_cpu_seconds,
            "database_profile": with_references.process.database_profile,
            "other_work_share": with_references.process.other_work_share,
            "rows": rows,
        },
        "ratio": round(ratio, 3),
        "cpu_ratio": round(cpu["without"] / cpu["with"], 3) if cpu["with"] else None,
        "target": TARGET_RATIO,
        "meets_target": ratio >= TARGET_RATIO,
        "notes": (
            ["other imports or benchmarks ran meanwhile: " + "; ".join(others)] if others else []
        ),
    }
    text = json.dumps(report, indent=2) + "\n"
    say(text)
    (work_dir / "last-citations-report.json").write_text(text)
    (DATA_DIR / "last-citations-report.json").write_text(text)
    say(f"written to {shown(DATA_DIR / 'last-citations-report.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
