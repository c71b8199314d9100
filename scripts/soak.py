"""A bounded soak: the site under steady load for a while, watched for errors, latency and memory.

    make soak                         # 10 minutes on the demo data (`make demo` loads it)
    SOAK_SECONDS=60 make soak         # shorter

Starts gunicorn with the production settings on loopback (a SECRET_KEY made for the run,
ALLOWED_HOSTS 127.0.0.1; every request carries X-Forwarded-Proto: https, as the TLS proxy in
front of production adds, so HTTPS redirects, secure cookies and CSRF's referer check are what a
visitor meets), and a Celery worker with the same settings. Then SOAK_CLIENTS threads (httpx,
one connection each) go round a rotating set of pages and API calls for SOAK_SECONDS: home,
researcher profiles, works, topics, institutions, search, the explorer, the COI check, API
lists and records; one of the threads is a signed-in session (the demo admin, signed in through
the login form with its CSRF token) that also visits the account pages.

Reports requests, errors (answers other than 2xx/3xx, and 5xx apart), p50 and p99 latency
overall, per kind of page and per minute, and the resident memory (RSS) of each gunicorn worker
and of the Celery worker at the start (after one untimed round) and at the end. Writes the
figures to bench-data/soak-report.json. Exits 1 if any request failed.

Environment: SOAK_SECONDS (600), SOAK_CLIENTS (4), SOAK_WORKERS (gunicorn workers, 2),
DATABASE_URL and REDIS_URL (the development ones by default), DEMO_ADMIN_EMAIL and
DEMO_ADMIN_PASSWORD (as `make demo` set them). The API's anonymous throttle (120 a minute per
address) is lifted for the run: every anonymous thread comes from 127.0.0.1, and a 429 there
would measure the limit, not the site.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import httpx
import psycopg
from soak_figures import Sample, SoakRun, report_print, soak_report

REPO_ROOT = Path(__file__).resolve().parent.parent
REPORT = REPO_ROOT / "bench-data" / "soak-report.json"
BIN = Path(sys.executable).parent
DATABASE_URL = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bzpeer")
PROXY_HEADERS = {"X-Forwarded-Proto": "https"}


def say(text: str = "") -> None:
    print(text, flush=True)


def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise SystemExit(f"{name} must be a whole number from 1, not {raw!r}")
    return int(raw)


# --- what to visit --------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    kind: str
    path: str
    signed_in_only: bool = False


def targets_from_database() -> list[Target]:
    """Pages and API calls over the records the database holds (the most cited first)."""
    with psycopg.connect(DATABASE_URL, connect_timeout=5) as connection:

        def column(query: str) -> list:
            return [row[0] for row in connection.execute(query)]

        slugs = column(
            "SELECT slug FROM researchers_researcher WHERE merged_into_id IS NULL "
            "ORDER BY cited_by_count DESC, id LIMIT 12"
        )
        names = column(
            "SELECT display_name FROM researchers_researcher WHERE merged_into_id IS NULL "
            "ORDER BY cited_by_count DESC, id LIMIT 6"
        )
        works = column("SELECT id FROM publications_work ORDER BY cited_by_count DESC LIMIT 8")
        topics = column("SELECT id FROM publications_topic ORDER BY id LIMIT 4")
        institutions = column("SELECT id FROM researchers_institution ORDER BY id LIMIT 4")
    if len(slugs) < 2 or not works:
        raise SystemExit(
            f"The database at {DATABASE_URL} holds no demo data: run `make migrate demo` first."
        )
    surnames = [name.split()[-1] for name in names]
    targets = [Target("home", "/")]
    targets += [Target("profile", f"/researchers/{slug}/") for slug in slugs]
    targets += [Target("work", f"/works/{work}/") for work in works]
    targets += [Target("topic", f"/topics/{topic}/") for topic in topics]
    targets += [Target("institution", f"/institutions/{pk}/") for pk in institutions]
    targets += [Target("search", f"/search/?q={quote(surname)}") for surname in surnames]
    targets += [
        Target("search", f"/search/suggest/?q={quote(surname[:3])}") for surname in surnames
    ]
    targets += [Target("explorer", f"/explore/?researcher={slug}") for slug in slugs[:4]]
    targets += [Target("explorer", f"/researchers/{slug}/graph-panel/") for slug in slugs[:4]]
    targets.append(Target("coi", f"/coi/?q={quote(slugs[0] + ',' + slugs[1])}"))
    targets += [
        Target("api-list", "/api/v1/researchers/"),
        Target("api-list", "/api/v1/works/"),
        Target("api-list", f"/api/v1/researchers/?search={quote(surnames[0])}"),
        Target("api-list", f"/api/v1/researchers/{slugs[0]}/works/"),
        Target("api-list", f"/api/v1/coi/?researchers={slugs[0]},{slugs[1]}"),
        Target("api-list", f"/api/v1/graph/path/?source={slugs[0]}&target={slugs[1]}"),
    ]
    targets += [Target("api-detail", f"/api/v1/researchers/{slug}/") for slug in slugs[:4]]
    targets += [Target("api-detail", f"/api/v1/researchers/{slug}/graph/") for slug in slugs[:2]]
    targets += [Target("api-detail", f"/api/v1/works/{work}/") for work in works[:4]]
    targets += [
        Target("account", "/account/", signed_in_only=True),
        Target("account", "/following/", signed_in_only=True),
        Target("account", "/api/v1/claims/", signed_in_only=True),
    ]
    return targets


# --- the servers ----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_environment(static_root: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bzpeer.settings.production",
        "DATABASE_URL": DATABASE_URL,
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "STATIC_ROOT": str(static_root),
        "API_ANON_RATE": "1000000/min",
        "LOG_LEVEL": "WARNING",
    }


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(  # noqa: S603 - our own executables
        command,
        cwd=REPO_ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: stopped whole at the end
    )


def stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The fields after the command (which may hold spaces) start after its closing ")".
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return sorted(found)


def rss_mb(pid: int) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"^VmRSS:\s+(\d+) kB", status, flags=re.M)
    return round(int(match.group(1)) / 1024, 1) if match else None


def wait_until_up(base: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn stopped at start:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{base}/healthz", headers=PROXY_HEADERS, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"gunicorn did not answer at {base}:\n{log.read_text()[-3000:]}")


# --- the visitors ---------------------------------------------------------------------------


class Visitor:
    """One connection's worth of browsing; cookies are kept by hand because the production
    settings mark them Secure and the loopback connection is plain HTTP (the proxy's job)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.client = httpx.Client(base_url=base, timeout=60, follow_redirects=False)
        self.cookies: dict[str, str] = {}

    def get(self, path: str, **headers: str) -> httpx.Response:
        return self._send("GET", path, headers=headers)

    def _send(
        self, method: str, path: str, *, headers: dict[str, str], data=None
    ) -> httpx.Response:
        all_headers = {**PROXY_HEADERS, **headers}
        if self.cookies:
            all_headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        response = self.client.request(method, path, headers=all_headers, data=data)
        for name, value in response.cookies.items():
            self.cookies[name] = value
        return response

    def sign_in(self, email: str, password: str) -> None:
        self.get("/accounts/login/")
        token = self.cookies.get("csrftoken", "")
        origin = "https://" + self.base.split("://", 1)[1]
        answer = self._send(
            "POST",
            "/accounts/login/",
            headers={"Origin": origin, "Referer": f"{origin}/accounts/login/"},
            data={"login": email, "password": password, "csrfmiddlewaretoken": token},
        )
        if answer.status_code != 302 or "sessionid" not in self.cookies:
            raise SystemExit(
                f"Signing in as {email} failed ({answer.status_code}): run `make demo` (it sets "
                "the demo admin's password) or set DEMO_ADMIN_EMAIL and DEMO_ADMIN_PASSWORD."
            )


@dataclass
class Recorder:
    samples: list[Sample] = field(default_factory=list)
    failures: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, batch: list[Sample], failures: dict[str, int]) -> None:
        with self.lock:
            self.samples += batch
            for key, count in failures.items():
                self.failures[key] += count


def browse(
    visitor: Visitor, targets: list[Target], offset: int, until: float, recorder: Recorder
) -> None:
    batch: list[Sample] = []
    failures: dict[str, int] = defaultdict(int)
    index = offset
    while time.monotonic() < until:
        target = targets[index % len(targets)]
        index += 1
        started = time.perf_counter()
        try:
            status = visitor.get(target.path).status_code
        except httpx.HTTPError as error:
            status = 0  # no answer at all: counted as an error
            failures[f"{target.path}: {type(error).__name__}"] += 1
        elapsed = time.perf_counter() - started
        batch.append(Sample(time.monotonic(), target.kind, status, elapsed))
        if not 200 <= status < 400:
            failures[f"{target.path}: {status}"] += 1
    recorder.add(batch, failures)


# --- figures (the report itself: soak_figures.py) -----------------------------------------


def memory(gunicorn_master: int, celery: subprocess.Popen) -> dict[str, float | None]:
    readings: dict[str, float | None] = {
        f"gunicorn worker {pid}": rss_mb(pid) for pid in children(gunicorn_master)
    }
    readings[f"gunicorn master {gunicorn_master}"] = rss_mb(gunicorn_master)
    for pid in [celery.pid, *children(celery.pid)]:
        readings[f"celery {pid}"] = rss_mb(pid)
    return readings


def collect_static(env: dict[str, str], work_dir: Path) -> None:
    say(f"collectstatic into {work_dir / 'static'} ...")
    subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=REPO_ROOT,
        env=env,
        check=True,
    )


def visitors_ready(
    base: str, targets: list[Target], *, clients: int, email: str, password: str
) -> tuple[Visitor, list[Visitor]]:
    """The signed-in member and the other visitors, after one untimed round of every target
    (a page that fails before the soak stops it)."""
    member = Visitor(base)
    member.sign_in(email, password)
    visitors = [member] + [Visitor(base) for _ in range(clients - 1)]
    say(f"one untimed round over {len(targets)} pages and API calls ...")
    for target in targets:
        status = member.get(target.path).status_code
        if not 200 <= status < 400:
            raise SystemExit(f"{target.path} answered {status} before the soak began")
    return member, visitors


def soak(
    base: str,
    server: subprocess.Popen,
    celery: subprocess.Popen,
    targets: list[Target],
    *,
    seconds: int,
    clients: int,
    workers: int,
    member: Visitor,
    visitors: list[Visitor],
) -> SoakRun:
    """Every visitor browses for `seconds` (the member all targets, the others the public
    ones), with the servers' memory read at the start, each minute and at the end."""
    public = [target for target in targets if not target.signed_in_only]
    time.sleep(2)
    memory_start = memory(server.pid, celery)
    say(
        f"soak: {seconds}s, {clients} clients (1 signed in), {workers} gunicorn workers, "
        f"{base} with bzpeer.settings.production, and a Celery worker"
    )
    recorder = Recorder()
    started = time.monotonic()
    until = started + seconds
    threads = [
        threading.Thread(
            target=browse,
            args=(visitor, targets if visitor is member else public, n * 7, until, recorder),
            daemon=True,
        )
        for n, visitor in enumerate(visitors)
    ]
    for thread in threads:
        thread.start()
    # The workers' memory each minute: growth that levels off is warming up (caches,
    # prepared statements), growth that goes on is a leak.
    memory_by_minute: dict[int, dict[str, float | None]] = {0: memory_start}
    while any(thread.is_alive() for thread in threads):
        time.sleep(min(60, max(1, until - time.monotonic())))
        if time.monotonic() < until:
            elapsed = int(time.monotonic() - started)
            memory_by_minute[round(elapsed / 60)] = memory(server.pid, celery)
            say(f"  {elapsed}s ...")
    for thread in threads:
        thread.join()
    memory_end = memory(server.pid, celery)
    return SoakRun(
        recorder.samples,
        recorder.failures,
        started,
        memory_start,
        memory_end,
        memory_by_minute,
        server_alive=server.poll() is None,
        celery_alive=celery.poll() is None,
    )


def main() -> int:
    """Start gunicorn and a Celery worker, load them for SOAK_SECONDS, report and stop them:
    start, load, measure, report, in that order, with the processes' cleanup around the load."""
    seconds = _int_env("SOAK_SECONDS", 600)
    clients = _int_env("SOAK_CLIENTS", 4)
    workers = _int_env("SOAK_WORKERS", 2)
    email = os.environ.get("DEMO_ADMIN_EMAIL", "admin@bzpeer.invalid")
    password = os.environ.get("DEMO_ADMIN_PASSWORD", "bzpeer-demo-admin")
    targets = targets_from_database()

    work_dir = Path(tempfile.mkdtemp(prefix="bzpeer-soak-"))
    env = server_environment(work_dir / "static")
    collect_static(env, work_dir)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    gunicorn_log, celery_log = work_dir / "gunicorn.log", work_dir / "celery.log"
    server = start(
        [str(BIN / "gunicorn"), "bzpeer.wsgi", "-c", "gunicorn.conf.py", "-w", str(workers),
         "-b", f"127.0.0.1:{port}", "--log-level", "warning"],
        env, gunicorn_log,
    )  # fmt: skip
    celery = start(
        [str(BIN / "celery"), "-A", "bzpeer", "worker", "--concurrency=1", "--loglevel=warning"],
        env,
        celery_log,
    )
    try:
        wait_until_up(base, server, gunicorn_log)
        member, visitors = visitors_ready(
            base, targets, clients=clients, email=email, password=password
        )
        run = soak(
            base,
            server,
            celery,
            targets,
            seconds=seconds,
            clients=clients,
            workers=workers,
            member=member,
            visitors=visitors,
        )
    finally:
        stop(server)
        stop(celery)
        shutil.rmtree(work_dir / "static", ignore_errors=True)

    report = soak_report(run, seconds=seconds, clients=clients, workers=workers)
    REPORT.parent.mkdir(exist_ok=True)
    REPORT.write_text(json.dumps(report, indent=2))
    report_print(report, run, report_path=REPORT.relative_to(REPO_ROOT), work_dir=work_dir)
    overall = report["overall"]
    return 0 if overall["errors"] == 0 and run.server_alive and run.celery_alive else 1


if __name__ == "__main__":
    sys.exit(main())
