"""Profile and work page throughput and latency under concurrent load, beside a trivial view.

    python -m bench.pages_bench [--database bzpeer_bench] [--seconds 20] [--clients 16]

Serves the site with gunicorn (2 sync workers, production settings, DEBUG off) on the
benchmark database that bench.import_bench filled, and drives it with wrk (Debian's
package) from a second process: first the trivial /healthz view (the framework ceiling), then
profile pages of random researchers with the anonymous page cache off (cold), then with it on
(warm), then work pages (`/works/<id>/`: references, cited by and related works; no page cache)
of random works, those that cite a work the corpus holds when there are any (bench.citations_bench
leaves such a corpus). Before each, one untimed visit to every page: the database files in
memory for cold (as on a server that has been up a while), every page in the page cache for
warm. Prints figures, not a verdict on time: nothing here
asserts a duration. Writes bench-data/pages-report.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import psycopg

from bench import smoke
from bench.harness import checkpoint, static_collect

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "bench-data"
WRK_SCRIPT = """
local paths = {}
for line in io.lines(os.getenv("BENCH_PATHS")) do paths[#paths + 1] = line end
math.randomseed(7)
request = function()
  return wrk.format("GET", paths[math.random(#paths)])
end
"""


def say(text: str = "") -> None:
    print(text, flush=True)  # noqa: T201


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_until_up(url: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 - local URL
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"gunicorn did not answer at {url}")


def _parse_wrk(output: str) -> dict[str, float]:
    def millis(value: str) -> float:
        number, unit = re.match(r"([\d.]+)(us|ms|s)", value).groups()  # type: ignore[union-attr]
        return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    percentiles = dict(re.findall(r"^\s+(50|75|90|99)%\s+(\S+)", output, flags=re.M))
    requests = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return {
        "requests_per_second": round(requests, 1),
        "p50_ms": round(millis(percentiles["50"]), 1),
        "p99_ms": round(millis(percentiles["99"]), 1),
        "non_2xx": int(errors.group(1)) if errors else 0,
    }


def _wrk(base_url: str, *, paths_file: Path, seconds: int, clients: int) -> dict[str, float]:
    if not smoke.have_wrk():  # only a smoke run gets here without wrk: a load in threads
        paths = [(line, {}) for line in paths_file.read_text().splitlines() if line]
        return smoke.python_load(base_url, paths, seconds=seconds, clients=clients)
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT)
    result = subprocess.run(
        ["wrk", "-t2", f"-c{clients}", f"-d{seconds}s", "--latency", "-s", script.name, base_url],
        capture_output=True, text=True, check=True, env={**os.environ, "BENCH_PATHS": str(paths_file)},
    )  # fmt: skip
    return _parse_wrk(result.stdout)


def _gunicorn(env: dict[str, str], port: int, *, workers: int = 2) -> subprocess.Popen:
    gunicorn = Path(sys.executable).with_name("gunicorn")
    return subprocess.Popen(
        [str(gunicorn), "bzpeer.wsgi", "-w", str(workers), "-b", f"127.0.0.1:{port}", "--log-level", "warning"],
        cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="bzpeer_bench")
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--pages", type=int, default=2000, help="random researchers to visit")
    parser.add_argument("--work-pages", type=int, default=2000, help="random works to visit")
    smoke.add_argument(parser)
    options = parser.parse_args(argv)
    if options.smoke:  # its own tiny corpus, a second of load per phase
        smoke.apply(
            parser,
            options,
            database=smoke.default_database("pages"),
            seconds=smoke.LOAD_SECONDS,
            clients=smoke.LOAD_CLIENTS,
            pages=20,
            work_pages=20,
        )
        smoke.begin(options.database)
        smoke.tiny_corpus(options.database)
    elif not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    return options


@dataclass
class Corpus:
    works: int
    researchers: int
    slugs: list[str]
    largest: tuple
    work_ids: list[int]
    # The visited works' mean references and citations held (what their pages list).
    work_citations: tuple


def _work_ids(connection: psycopg.Connection, count: int) -> list[int]:
    """`count` random works among those that cite a work held, or among all when none does."""
    citing = [
        row[0]
        for row in connection.execute(
            "SELECT w.id FROM publications_work w WHERE EXISTS"
            " (SELECT FROM publications_citation c WHERE c.citing_id = w.id)"
            " ORDER BY random() LIMIT %s",
            [count],
        )
    ]
    if citing:
        return citing
    return [
        row[0]
        for row in connection.execute(
            "SELECT id FROM publications_work ORDER BY random() LIMIT %s", [count]
        )
    ]


def _corpus_read(database_url: str, options: argparse.Namespace) -> Corpus:
    """The corpus's works and researchers, `--pages` random slugs, `--work-pages` random works,
    and the (max, mean) works of a record; then the tables vacuumed as autovacuum would leave
    them."""
    with psycopg.connect(database_url) as connection:
        works = connection.execute("SELECT count(*) FROM publications_work").fetchone()[0]
        (researchers,) = connection.execute(
            "SELECT count(*) FROM researchers_researcher"
        ).fetchone()
        if not researchers:
            raise SystemExit(f"{options.database} is empty: run python -m bench.import_bench first")
        slugs = [
            row[0]
            for row in connection.execute(
                "SELECT slug FROM researchers_researcher WHERE merged_into_id IS NULL "
                "ORDER BY random() LIMIT %s",
                [options.pages],
            )
        ]
        largest = connection.execute(
            "SELECT max(works_count), avg(works_count)::numeric(10,1) FROM researchers_researcher"
        ).fetchone()
        work_ids = _work_ids(connection, options.work_pages)
        work_citations = connection.execute(
            "SELECT (SELECT count(*) FROM publications_citation WHERE citing_id = ANY(%(ids)s)),"
            " (SELECT count(*) FROM publications_citation WHERE cited_id = ANY(%(ids)s))",
            {"ids": work_ids},
        ).fetchone()
        work_citations = tuple(round(total / max(1, len(work_ids)), 1) for total in work_citations)

    # As autovacuum leaves the tables after a bulk load (PostgreSQL vacuums after inserts too),
    # which this machine's server, with autovacuum off, would not do: fresh statistics and a
    # visibility map, so a researcher's works come from the (researcher, work) index alone.
    # search_bench does the same before it in `make bench`; the second time costs little.
    say("VACUUM ANALYZE of the tables a profile reads ...")
    with psycopg.connect(database_url, autocommit=True) as connection:
        connection.execute(
            "VACUUM ANALYZE researchers_researcher, researchers_institution, publications_work,"
            " publications_authorship, publications_worktopic, publications_topic,"
            " publications_source, graph_closecollaboratorscount, publications_citation,"
            " publications_relatedwork, publications_worknovelty"
        )
        # The pages it dirtied are written now, not by the checkpointer during a measurement.
        checkpoint(connection)
    return Corpus(works, researchers, slugs, largest, work_ids, work_citations)


def _server_environment(database_url: str, static_root: Path) -> dict[str, str]:
    """The production settings on loopback, with the static files collected into static_root."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bzpeer.settings.production",
        "DATABASE_URL": database_url,
        "SECRET_KEY": "bench-only-" + "x" * 50,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "false",
        "STATIC_ROOT": str(static_root),
        "LOG_LEVEL": "WARNING",
    }
    static_collect(env)
    return env


def _pages_visit(base: str, paths: list[str]) -> None:
    """One untimed visit to every page first. Cold: the database's files in memory and each
    worker's statements prepared, as on a server that has been up a while ("cold" means the
    page cache is off, not a server fresh from boot; otherwise the figure measures this
    machine's disk). Warm: every page in the page cache."""
    say(f"visiting the {len(paths)} pages once, untimed ...")
    for path in paths:
        try:
            urllib.request.urlopen(f"{base}{path}", timeout=30).read()  # noqa: S310
        except urllib.error.HTTPError as error:
            # The shared bench database was rewritten under us: say so, don't guess.
            raise SystemExit(
                f"{path} answered {error.code}: the corpus changed during the"
                " run (another benchmark?); run again on a quiet machine"
            ) from error


def _measure(
    env: dict[str, str],
    options: argparse.Namespace,
    *,
    paths_files: dict[str, Path],
    healthz_file: Path,
) -> dict[str, dict[str, float]]:
    """The trivial view, then the profiles cold (page cache off) and warm, then the work pages,
    each server fresh; in smoke mode the work pages on the cold one, which has their settings
    (a server's start-up is most of a smoke phase)."""
    figures: dict[str, dict[str, float]] = {}
    servers: tuple[tuple[str, tuple[str, ...]], ...] = (
        (("0", ("cold", "work")), ("600", ("warm",)))
        if options.smoke
        else (("0", ("cold",)), ("600", ("warm",)), ("0", ("work",)))
    )
    for cache_seconds, labels in servers:
        port = _free_port()
        server = _gunicorn(
            {**env, "PROFILE_PAGE_CACHE_SECONDS": cache_seconds},
            port,
            workers=1 if options.smoke else 2,  # one worker process in smoke mode
        )
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_until_up(f"{base}/healthz")
            if "cold" in labels:
                say(f"trivial view: wrk {options.clients} clients, {options.seconds}s ...")
                figures["trivial"] = _wrk(
                    base, paths_file=healthz_file, seconds=options.seconds, clients=options.clients
                )
            for label in labels:
                paths_file = paths_files[label]
                _pages_visit(base, paths_file.read_text().splitlines())
                say(f"{label} pages: wrk {options.clients} clients, {options.seconds}s ...")
                figures[label] = _wrk(
                    base, paths_file=paths_file, seconds=options.seconds, clients=options.clients
                )
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    return figures


def main(argv: list[str] | None = None) -> int:
    options = _arguments(argv)
    database_url = f"postgres://postgres@127.0.0.1:5432/{options.database}"
    corpus = _corpus_read(database_url, options)
    works, researchers, slugs, largest = (
        corpus.works,
        corpus.researchers,
        corpus.slugs,
        corpus.largest,
    )

    DATA_DIR.mkdir(exist_ok=True)
    paths_file = DATA_DIR / "pages-bench-paths.txt"
    paths_file.write_text("".join(f"/researchers/{slug}/\n" for slug in slugs))
    work_paths_file = DATA_DIR / "pages-bench-work-paths.txt"
    work_paths_file.write_text("".join(f"/works/{pk}/\n" for pk in corpus.work_ids))
    paths_files = {"cold": paths_file, "warm": paths_file, "work": work_paths_file}
    healthz_file = DATA_DIR / "pages-bench-healthz.txt"
    healthz_file.write_text("/healthz\n")

    static_root = Path(tempfile.mkdtemp(prefix="bzpeer-bench-static-"))
    env = _server_environment(database_url, static_root)
    figures = _measure(env, options, paths_files=paths_files, healthz_file=healthz_file)
    shutil.rmtree(static_root, ignore_errors=True)

    trivial = figures["trivial"]["requests_per_second"]
    report = {
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count()},
        "corpus": {"works": works, "researchers": researchers, "max_works_per_researcher": largest[0],
                   "mean_works_per_researcher": float(largest[1])},
        "server": "gunicorn, 2 sync workers, bzpeer.settings.production, DEBUG off",
        "load": f"wrk, {options.clients} connections, {options.seconds}s per run, {len(slugs)} random profiles, {len(corpus.work_ids)} random works",
        "work_pages": {"mean_references_held": corpus.work_citations[0], "mean_cited_by_held": corpus.work_citations[1]},
        "figures": figures,
        "cold_share_of_trivial": round(figures["cold"]["requests_per_second"] / trivial, 3),
        "warm_share_of_trivial": round(figures["warm"]["requests_per_second"] / trivial, 3),
        "work_share_of_trivial": round(figures["work"]["requests_per_second"] / trivial, 3),
    }  # fmt: skip
    (DATA_DIR / "pages-report.json").write_text(json.dumps(report, indent=2))
    say()
    say(
        f"corpus      {works:,} works, {researchers:,} researchers (max {largest[0]} works on one record)"
    )
    say(
        f"work pages  {len(corpus.work_ids):,} works, {corpus.work_citations[0]} references and"
        f" {corpus.work_citations[1]} citing works held on average"
    )
    for label in ("trivial", "cold", "warm", "work"):
        row = figures[label]
        say(
            f"{label:<8} {row['requests_per_second']:>9,.1f} req/s   p50 {row['p50_ms']:>7.1f} ms   "
            f"p99 {row['p99_ms']:>7.1f} ms   non-2xx {row['non_2xx']}"
        )
    say(f"cold / trivial = {report['cold_share_of_trivial']:.1%} (target >= 15%, p99 < 40 ms)")
    say(f"warm / trivial = {report['warm_share_of_trivial']:.1%} (target >= 55%)")
    say(f"work / trivial = {report['work_share_of_trivial']:.1%} (target: p99 < 30 ms at 1M works)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
