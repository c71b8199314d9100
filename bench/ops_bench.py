"""Operations benchmark (issue 16): the profile page with the replica router off and on and
through PgBouncer, beside the trivial view, and a conditional GET answered 304 beside a full
render. Figures, not a timed test.

    python -m bench.ops_bench [--works 20000] [--seconds 10] [--clients 16]

It starts its own PostgreSQL primary and streaming replica (initdb and pg_basebackup from the
machine's binaries, as tests/bzpeer/test_read_replica.py does) and Debian's pgbouncer in
transaction mode in front of the primary, imports a synthetic corpus into the primary, and
drives gunicorn (2 sync workers, production settings) with wrk in each configuration. The
report goes to bench-data/ops-report.json. Every server it starts is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import psycopg

from bench import smoke
from bench.harness import migrate, static_collect
from bench.pages_bench import DATA_DIR, REPO_ROOT, _gunicorn, _parse_wrk, _wait_until_up, say
from tests.bzpeer.servers import (
    POSTGRES_BIN,
    Cluster,
    common_settings,
    free_port,
    popen_as_server_user,
    run_as_server_user,
    server_folder,
    wait_for_port,
)
from tests.support.synthetic import write_works_snapshot

DATABASE = "bzpeer"
# Each request a random line of BENCH_PATHS: "path" or "path<TAB>etag" (sent as If-None-Match).
WRK_SCRIPT = """
local lines = {}
for line in io.lines(os.getenv("BENCH_PATHS")) do lines[#lines + 1] = line end
math.randomseed(7)
request = function()
  local line = lines[math.random(#lines)]
  local path, etag = line:match("([^\\t]+)\\t?(.*)")
  if etag ~= "" then return wrk.format("GET", path, {["If-None-Match"] = etag}) end
  return wrk.format("GET", path)
end
"""


def _schema_copy(source: str, target_url: str) -> None:
    """The schema and migration records of `source` (migrated first, when it needs it) loaded
    into the new primary's database: one dump instead of every migration on a new cluster."""
    from bench.harness import bench_database_url, ensure_database

    source_url = bench_database_url(source)
    ensure_database(source_url)
    env = {
        **os.environ,
        "DATABASE_URL": source_url,
        "DJANGO_SETTINGS_MODULE": "bzpeer.settings.local",
    }
    migrate(env)
    say(f"the schema of {source} (pg_dump) into the new primary ...")
    dump = subprocess.run(
        [str(POSTGRES_BIN / "pg_dump"), "--no-owner", "--no-privileges", source_url],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(
        [str(POSTGRES_BIN / "psql"), "-q", "-v", "ON_ERROR_STOP=1", target_url],
        input=dump,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _wrk(base_url: str, lines: list[str], *, seconds: int, clients: int) -> dict[str, float]:
    if not smoke.have_wrk():  # only a smoke run gets here without wrk: a load in threads
        requests = []
        for line in lines:
            path, _, etag = line.partition("\t")
            requests.append((path, {"If-None-Match": etag} if etag else {}))
        return smoke.python_load(base_url, requests, seconds=seconds, clients=clients)
    with tempfile.TemporaryDirectory() as folder:
        script, paths = Path(folder) / "bench.lua", Path(folder) / "paths.txt"
        script.write_text(WRK_SCRIPT)
        paths.write_text("".join(f"{line}\n" for line in lines))
        result = subprocess.run(
            ["wrk", "-t2", f"-c{clients}", f"-d{seconds}s", "--latency", "-s", str(script), base_url],
            capture_output=True, text=True, check=True, env={**os.environ, "BENCH_PATHS": str(paths)},
        )  # fmt: skip
    return _parse_wrk(result.stdout)


def _start_clusters(folder: Path) -> tuple[Cluster, Cluster]:
    primary = Cluster(folder / "primary", free_port())
    replica = Cluster(folder / "replica", free_port())
    for cluster in (primary, replica):
        run_as_server_user(["mkdir", str(cluster.folder)])
    run_as_server_user(
        [str(POSTGRES_BIN / "initdb"), "-D", str(primary.data), "-U", "postgres", "--auth=trust"]
        + ["-E", "UTF8", "--locale=C.UTF-8"]
    )
    quiet = {**common_settings(primary.folder, primary.port), "log_statement": "'none'"}
    primary.configure(**quiet, wal_level="replica", max_wal_senders="4", max_replication_slots="4")
    primary.start()
    run_as_server_user(
        [str(POSTGRES_BIN / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary.port)]
        + ["-U", "postgres", "-D", str(replica.data), "-R", "-X", "stream", "-C", "-S", "bench"]
    )
    replica.configure(
        **{**common_settings(replica.folder, replica.port), "log_statement": "'none'"},
        hot_standby="on",
    )
    replica.start()
    return primary, replica


def _start_pgbouncer(folder: Path, primary: Cluster) -> tuple[subprocess.Popen, int]:
    port = free_port()
    config = folder / "pgbouncer.ini"
    text = f"""
[databases]
{DATABASE} = host=127.0.0.1 port={primary.port} dbname={DATABASE} user=postgres
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = 8
max_client_conn = 200
ignore_startup_parameters = extra_float_digits,options
logfile = {folder}/pgbouncer.log
pidfile = {folder}/pgbouncer.pid
"""
    run_as_server_user(["tee", str(config)], input=text)
    pgbouncer = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    process = popen_as_server_user([pgbouncer, str(config)], stdout=subprocess.DEVNULL)
    wait_for_port(port, what="pgbouncer")
    return process, port


def _wait_for_replay(primary: Cluster, replica: Cluster) -> None:
    with primary.connect() as connection:
        target = connection.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
    with replica.connect() as connection:
        while not connection.execute(
            "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [target]
        ).fetchone()[0]:
            time.sleep(0.2)


class ReplicaLagSampler:
    """Samples, twice a second on the primary, how far the replica's replay is behind: bytes of
    WAL not yet replayed and PostgreSQL's own replay_lag (the time between a commit on the
    primary and its replay on the replica). A user who wrote is read from the primary for
    DATABASE_REPLICA_STICKY_SECONDS; this says whether that window covers the lag under load."""

    def __init__(self, primary: Cluster) -> None:
        self.primary = primary
        self.bytes_behind: list[int] = []
        self.lag_seconds: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ReplicaLagSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        with psycopg.connect(self.primary.url("postgres"), autocommit=True) as connection:
            while not self._stop.wait(0.5):
                row = connection.execute(
                    "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint,"
                    "       coalesce(extract(epoch FROM replay_lag), 0)::float8"
                    " FROM pg_stat_replication"
                ).fetchone()
                if row is not None:
                    self.bytes_behind.append(int(row[0] or 0))
                    self.lag_seconds.append(float(row[1]))

    def figures(self) -> dict[str, float]:
        if not self.lag_seconds:
            return {"samples": 0}
        ordered = sorted(self.lag_seconds)
        return {
            "samples": len(ordered),
            "replay_lag_p50_s": round(ordered[len(ordered) // 2], 3),
            "replay_lag_p99_s": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3),
            "replay_lag_max_s": round(ordered[-1], 3),
            "wal_behind_max_mb": round(max(self.bytes_behind) / 1e6, 1),
        }


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--works", type=int, default=20000)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument(
        "--database",
        default=None,
        help="a database on DATABASE_URL's server, migrated first, whose schema the new primary "
        "gets with pg_dump instead of running every migration again (default in --smoke: "
        "bzpeer_bench_smoke_ops; otherwise the migrations run on the new primary)",
    )
    smoke.add_argument(parser)
    options = parser.parse_args(argv)
    if options.smoke:
        smoke.apply(
            parser,
            options,
            works=smoke.WORKS,
            seconds=smoke.LOAD_SECONDS,
            clients=smoke.LOAD_CLIENTS,
            pages=20,
            database=smoke.default_database("ops"),
        )
        smoke.begin(options.database)
    elif not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    if not (shutil.which("pgbouncer") or Path("/usr/sbin/pgbouncer").exists()):
        raise SystemExit("pgbouncer is not installed (apt-get install pgbouncer)")
    return options


def _server_environment(primary: Cluster, work_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bzpeer.settings.production",
        "DATABASE_URL": primary.url(DATABASE),
        "SECRET_KEY": "bench-only-" + "x" * 50,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "false",
        "STATIC_ROOT": str(work_dir / "static"),
        "LOG_LEVEL": "WARNING",
        "CACHE_KEY_PREFIX": f"bzpeer-ops-bench-{os.getpid()}",
    }


def _manage(env: dict[str, str], *arguments: str) -> None:
    subprocess.run([sys.executable, "manage.py", *arguments], cwd=REPO_ROOT, env=env, check=True)


def _corpus_load(
    options: argparse.Namespace,
    env: dict[str, str],
    primary: Cluster,
    replica: Cluster,
    work_dir: Path,
) -> tuple[dict[str, float], list[str], int]:
    """Migrate the primary and import the synthetic corpus while sampling the replica's replay
    lag; returns the lag's figures, the random profile paths to load and the researchers."""
    say("migrating and importing the synthetic corpus ...")
    if options.database:
        _schema_copy(options.database, primary.url(DATABASE))
    migrate(env)  # nothing to do after the schema copy
    static_collect(env)
    write_works_snapshot(work_dir / "snapshot", works=options.works)
    say("importing while sampling the replica's replay lag ...")
    with ReplicaLagSampler(primary) as lag:
        import_started = time.perf_counter()
        _manage(env, "import_openalex", str(work_dir / "snapshot"), "--sync", "--no-progress")
        import_seconds = time.perf_counter() - import_started
    replica_lag = {**lag.figures(), "import_seconds": round(import_seconds, 1)}
    with psycopg.connect(primary.url(DATABASE), autocommit=True) as connection:
        connection.execute("VACUUM ANALYZE")
        connection.execute("CHECKPOINT")
        slugs = [
            row[0]
            for row in connection.execute(
                "SELECT slug FROM researchers_researcher WHERE merged_into_id IS NULL"
                " ORDER BY random() LIMIT %s",
                [options.pages],
            )
        ]
        (researchers,) = connection.execute(
            "SELECT count(*) FROM researchers_researcher"
        ).fetchone()
    _wait_for_replay(primary, replica)
    return replica_lag, [f"/researchers/{slug}/" for slug in slugs], researchers


def _configuration_measure(
    name: str,
    env: dict[str, str],
    profiles: list[str],
    options: argparse.Namespace,
) -> dict[str, dict[str, float]]:
    """One configuration's figures: the trivial view and the profiles cold (no page cache),
    then the profiles warm and their conditional GETs (304), each on a gunicorn of its own."""
    figures: dict[str, dict[str, float]] = {}
    for label, cache_seconds in (("cold", "0"), ("warm", "600")):
        port = free_port()
        server = _gunicorn(
            {**env, "PROFILE_PAGE_CACHE_SECONDS": cache_seconds},
            port,
            workers=1 if options.smoke else 2,  # one worker process in smoke mode
        )
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_until_up(f"{base}/healthz")
            if label == "cold":
                say(f"{name}: trivial view ...")
                figures["trivial"] = _wrk(
                    base, ["/healthz"], seconds=options.seconds, clients=options.clients
                )
            etags = []
            with httpx.Client(base_url=base, timeout=30) as client:
                for path in profiles:  # untimed: every page visited once first
                    response = client.get(path)
                    response.raise_for_status()
                    etags.append(response.headers.get("etag", ""))
            say(f"{name}: profile, {label} ...")
            figures[label] = _wrk(base, profiles, seconds=options.seconds, clients=options.clients)
            if label == "warm":
                say(f"{name}: conditional GET (304) ...")
                lines = [f"{path}\t{etag}" for path, etag in zip(profiles, etags, strict=True)]
                figures["304"] = _wrk(base, lines, seconds=options.seconds, clients=options.clients)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    return figures


def _summary_print(
    figures: dict[str, dict[str, dict[str, float]]],
    options: argparse.Namespace,
    replica_lag: dict[str, float],
    load: tuple[float, float, float],
) -> None:
    say()
    for name, rows in figures.items():
        for label, row in rows.items():
            say(
                f"{name:15} {label:8} {row['requests_per_second']:>9,.1f} req/s"
                f"  p50 {row['p50_ms']:6.1f} ms  p99 {row['p99_ms']:6.1f} ms"
                f"  non-2xx/3xx {row['non_2xx']}"
            )
    say(
        f"replica replay lag while importing {options.works:,} works ({replica_lag}); a user "
        "who wrote reads the primary for DATABASE_REPLICA_STICKY_SECONDS (10 by default)"
    )
    say(f"load average at the end: {load}")


def main(argv: list[str] | None = None) -> int:
    options = _arguments(argv)
    folder = server_folder("bzpeer-ops-bench-")
    work_dir = Path(tempfile.mkdtemp(prefix="bzpeer-ops-bench-data-"))
    primary = replica = None
    pgbouncer = None
    try:
        say("starting a primary and a streaming replica ...")
        primary, replica = _start_clusters(folder)
        with primary.connect() as connection:
            connection.execute(f"CREATE DATABASE {DATABASE}")
            connection.execute(f"ALTER DATABASE {DATABASE} SET timezone TO 'UTC'")
        pgbouncer, pooler_port = _start_pgbouncer(folder, primary)
        env = _server_environment(primary, work_dir)
        replica_lag, profiles, researchers = _corpus_load(options, env, primary, replica, work_dir)

        configurations = {
            "primary only": {},
            "replica router": {"DATABASE_REPLICA_URLS": replica.url(DATABASE)},
            "pgbouncer": {
                "DATABASE_URL": f"postgres://postgres@127.0.0.1:{pooler_port}/{DATABASE}",
                "DB_PREPARE_THRESHOLD": "0",
            },
        }
        figures = {
            name: _configuration_measure(name, {**env, **extra}, profiles, options)
            for name, extra in configurations.items()
        }

        load = os.getloadavg()
        report = {
            "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                        "load_average_at_end": [round(value, 2) for value in load]},
            "corpus": {"works": options.works, "researchers": researchers},
            "server": "gunicorn, 2 sync workers, bzpeer.settings.production",
            "load": f"wrk, {options.clients} connections, {options.seconds}s per run, {len(profiles)} random profiles",
            "figures": figures,
            "replica_lag_during_import": replica_lag,
            "sticky_seconds": int(os.environ.get("DATABASE_REPLICA_STICKY_SECONDS", "10")),
        }  # fmt: skip
        DATA_DIR.mkdir(exist_ok=True)
        (DATA_DIR / "ops-report.json").write_text(json.dumps(report, indent=2))
        _summary_print(figures, options, replica_lag, load)
        return 0
    finally:
        if pgbouncer is not None:
            pgbouncer.terminate()
            pgbouncer.wait(timeout=30)
        for cluster in (replica, primary):
            if cluster is not None:
                cluster.stop()
        run_as_server_user(["rm", "-rf", str(folder)])
        shutil.rmtree(work_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
