"""A fault drill (issue 29): the site keeps serving while its dependencies fail.

    make chaos                          # about 2 minutes at a small size
    CHAOS_SECONDS=240 CHAOS_WORKS=8000 make chaos

Starts everything on loopback and free ports, in a temporary folder: a PostgreSQL cluster of
its own (initdb; as the postgres OS user when run as root), a Redis of its own keeping nothing
on disk (cache, sessions, rate limits, broker), gunicorn with the production settings (requests
marked HTTPS as the proxy in front would), a Celery worker and beat. Seeds researchers with
works and members (verified researchers, two of them in a conversation) who sign in, then
drives a steady mix: anonymous page views (home, profiles, works, search, API lists), sign-ins,
follows, messages, and a running import on the worker.
Meanwhile, on a fixed timeline: Redis is stopped, then started again empty; PostgreSQL is
restarted (stopped, and started a few seconds later); the worker is killed with SIGKILL and a
new one started. The machine's own PostgreSQL and Redis are never touched.

Reports the requests by status, the 500s (the target: none), the longest time each kind of
request kept failing and how long after each dependency came back each kind answered again,
and whether every follow and every message that was answered as done is there exactly once (a
message answered otherwise must not be there at all) and every imported record is there
exactly once. Writes bench-data/chaos-report.json; exits 1 on any 500, any
lost or doubled write, or a kind of request still failing 10 s after its dependency was back.

Environment: CHAOS_SECONDS (120), CHAOS_CLIENTS (4 threads: 2 anonymous, 2 members),
CHAOS_WORKS (imported during the run, 4000), BZPEER_POSTGRES_BIN (/usr/lib/postgresql/15/bin).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import psycopg
from chaos_figures import Fault, Sample, failing_stretches, failures_during, recovery_after
from chaos_servers import Postgres, Redis, free_port, manage, start, stop
from chaos_traffic import PASSWORD, PROXY_HEADERS, Recorder, Visitor, browse, member_journey

REPO_ROOT = Path(__file__).resolve().parent.parent
REPORT = REPO_ROOT / "bench-data" / "chaos-report.json"
BIN = Path(sys.executable).parent
RECOVERY_TARGET_SECONDS = 10


def say(text: str = "") -> None:
    print(text, flush=True)


def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise SystemExit(f"{name} must be a whole number from 1, not {raw!r}")
    return int(raw)


# Run by manage.py shell: researchers with works, members with a verified address, and an
# import run of CHAOS_WORKS synthetic records (written by the script), queued on the worker.
SEED = """
import json
from collaboration.services import invitation_accept, invitation_send
from ingest.services import import_run_create
from tests.factories import AuthorshipFactory, ResearcherFactory
from tests.support.people import verified_researcher

researchers = []
for number in range(RESEARCHERS):
    researcher = ResearcherFactory(slug=f"chaos-{number}", display_name=f"Chaos Person {number}")
    work_id = AuthorshipFactory(researcher=researcher, position=1).work_id
    researchers.append({"slug": researcher.slug, "id": researcher.pk, "work": work_id})
members = []
users = []
for number in range(MEMBERS):
    email = f"member-{number}@chaos.invalid"
    # A verified researcher (an approved L3 claim), so that members can talk to each other.
    user = verified_researcher(email, f"Chaos Member {number}", f"chaos-member-{number}")
    user.set_password(PASSWORD)
    user.save(update_fields=["password"])
    users.append(user)
    members.append({"email": email, "id": user.pk, "conversation": None})
# The first two members talk in one conversation (an invitation sent and accepted, as on the
# site): both send messages into it all through the drill.
if len(users) > 1:
    invitation = invitation_send(
        sender=users[0],
        recipient_researcher=users[1].record,
        kind="coauthor",
        purpose="A conversation for the fault drill: messages sent while its dependencies fail.",
    )
    conversation = invitation_accept(user=users[1], invitation_id=invitation.pk)
    for member in members[:2]:
        member["conversation"] = conversation.pk
run, _ = import_run_create(paths=[SNAPSHOT], chunk_lines=CHUNK_LINES)
print(json.dumps({"researchers": researchers, "members": members, "run": run.pk}))
"""

ENQUEUE = """
from ingest.tasks import import_run_enqueue
import_run_enqueue(RUN)
"""

# Chunk messages lost with Redis's empty restart are owed: beat's import_runs_resume_stalled
# sends them again once the run made no progress for 30 minutes. The drill moves the run's
# clock past that and runs the same sweep, rather than wait half an hour.
RESUME = """
from datetime import timedelta
from django.utils import timezone
from ingest.models import ImportRun
from ingest.tasks import import_runs_resume_stalled
ImportRun.objects.filter(pk=RUN, status="running").update(
    last_progress_at=timezone.now() - timedelta(hours=1)
)
import_runs_resume_stalled()
"""


# --- the figures ----------------------------------------------------------------------------


def writes_check(postgres: Postgres, seed: dict, recorder: Recorder, works: int) -> dict:
    with psycopg.connect(postgres.url("bzpeer"), autocommit=True) as connection:
        rows = connection.execute(
            "SELECT user_id, researcher_id, count(*) FROM researchers_follow GROUP BY 1, 2"
        ).fetchall()
        stored = dict(
            connection.execute(
                "SELECT body, count(*) FROM collaboration_message"
                " WHERE body LIKE 'chaos message %%' GROUP BY body"
            ).fetchall()
        )
        run = connection.execute(
            "SELECT status, read_count, created_count, updated_count, failed_count"
            " FROM publications_importrun WHERE id = %s",
            [seed["run"]],
        ).fetchone()
        imported = connection.execute(
            "SELECT count(*), count(DISTINCT openalex_id) FROM publications_work"
            " WHERE openalex_id LIKE 'W99%%'"
        ).fetchone()
    present = {(user, researcher): count for user, researcher, count in rows}
    follows_done = recorder.follows_done
    return {
        "follows_answered_done": len(follows_done),
        "follows_missing": len([pair for pair in follows_done if pair not in present]),
        "follows_doubled": len([pair for pair, count in present.items() if count > 1]),
        "messages_answered_done": len(recorder.messages_done),
        "messages_missing": len([text for text in recorder.messages_done if text not in stored]),
        "messages_doubled": len([text for text, count in stored.items() if count > 1]),
        "messages_refused": len(recorder.messages_refused),
        "messages_refused_but_stored": len(
            [text for text in recorder.messages_refused if text in stored]
        ),
        "import_run": dict(
            zip(["status", "read", "created", "updated", "failed"], run or (), strict=False)
        ),
        "imported_works_expected": works,
        "imported_works_rows": imported[0],
        "imported_works_distinct": imported[1],
    }


def environment(postgres: Postgres, redis: Redis, work_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bzpeer.settings.production",
        "DATABASE_URL": postgres.url("bzpeer"),
        "REDIS_URL": redis.url(),
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "STATIC_ROOT": str(work_dir / "static"),
        "API_ANON_RATE": "1000000/min",
        "RATE_LIMIT_LOGIN": "1000/m/ip",
        "LOG_LEVEL": "WARNING",
        # A killed worker's task comes back within seconds, not the production hour.
        "CELERY_VISIBILITY_TIMEOUT": "15",
        "CELERY_DEFAULT_QUEUE": "chaos",
        "IMPORT_BATCH_SIZE": "200",
        "EMAIL_BACKEND": "django.core.mail.backends.dummy.EmailBackend",
    }


# --- the drill ------------------------------------------------------------------------------


def run_timeline(
    seconds: int, postgres: Postgres, redis: Redis, worker: list[subprocess.Popen], respawn
) -> list[Fault]:
    """The faults, at fixed fractions of the run: Redis stopped for 15% of it and started again
    empty; PostgreSQL stopped for 5 s and started; the worker SIGKILLed and a new one started."""
    started = time.monotonic()
    faults: list[Fault] = []

    def at(fraction: float) -> None:
        time.sleep(max(0.0, started + seconds * fraction - time.monotonic()))

    at(0.15)
    fault = Fault("Redis stopped, then started again empty", "redis", down_at=time.monotonic())
    say("  Redis stopped ...")
    redis.stop()
    at(0.30)
    redis.start()
    fault.back_at = time.monotonic()
    faults.append(fault)
    say("  Redis started again, empty")
    at(0.45)
    fault = Fault("PostgreSQL restarted (5 s down)", "postgres", down_at=time.monotonic())
    say("  PostgreSQL stopped ...")
    postgres.stop("fast")
    time.sleep(5)
    postgres.start()
    fault.back_at = time.monotonic()
    faults.append(fault)
    say("  PostgreSQL started again")
    at(0.60)
    fault = Fault("the worker SIGKILLed, a new one started", "worker", down_at=time.monotonic())
    say("  worker killed (SIGKILL) ...")
    stop(worker[0], signal.SIGKILL)
    worker[0] = respawn()
    fault.back_at = time.monotonic()
    faults.append(fault)
    at(1.0)
    return faults


def prepare(work_dir: Path, works: int) -> tuple[Postgres, Redis, dict[str, str], dict]:
    sys.path.insert(0, str(REPO_ROOT))
    from tests.support.synthetic import write_works_snapshot

    work_dir.chmod(0o755)  # the postgres OS user reaches its folder inside
    postgres = Postgres(work_dir / "postgres")
    postgres.folder.mkdir()
    redis = Redis(work_dir)
    say(f"PostgreSQL on port {postgres.port}, Redis on port {redis.port}, in {work_dir}")
    postgres.create()
    redis.start()
    with psycopg.connect(postgres.url("postgres"), autocommit=True) as connection:
        connection.execute("CREATE DATABASE bzpeer")
    env = environment(postgres, redis, work_dir)
    say("migrate, collectstatic, seed ...")
    manage(env, "migrate", "--noinput", "-v0")
    manage(env, "collectstatic", "--noinput", "-v0")
    snapshot = work_dir / "snapshot"
    write_works_snapshot(snapshot, works=works)
    script = (
        SEED.replace("RESEARCHERS", "8")
        .replace("MEMBERS", "3")
        .replace("PASSWORD", repr(PASSWORD))
        .replace("SNAPSHOT", repr(str(snapshot)))
        .replace("CHUNK_LINES", str(max(100, works // 8)))
    )
    seed = json.loads(manage(env, "shell", "-c", script).strip().splitlines()[-1])
    return postgres, redis, env, seed


def main() -> int:
    """Start the stack, drive the traffic through the faults, report, and stop it all.

    Whole because it is the drill's script: set up, drive, break, measure, report, in that order,
    with the cleanup of every process and the cluster around all of it."""
    seconds = _int_env("CHAOS_SECONDS", 120)
    clients = _int_env("CHAOS_CLIENTS", 4)
    works = _int_env("CHAOS_WORKS", 4000)
    work_dir = Path(tempfile.mkdtemp(prefix="bzpeer-chaos-"))
    processes: list[subprocess.Popen] = []
    postgres: Postgres | None = None
    redis: Redis | None = None
    try:
        postgres, redis, env, seed = prepare(work_dir, works)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        gunicorn = start(
            [str(BIN / "gunicorn"), "bzpeer.wsgi", "-c", "gunicorn.conf.py", "-w", "2",
             "-b", f"127.0.0.1:{port}", "--log-level", "warning"],
            env, work_dir / "gunicorn.log",
        )  # fmt: skip

        def respawn() -> subprocess.Popen:
            process = start(
                [str(BIN / "celery"), "-A", "bzpeer", "worker", "--concurrency=2", "-Q",
                 "chaos,chaos-imports,chaos-graph,chaos-mail,chaos-discovery", "--loglevel=warning"],
                env, work_dir / "worker.log",
            )  # fmt: skip
            processes.append(process)
            return process

        worker = [respawn()]
        beat = start(
            [str(BIN / "celery"), "-A", "bzpeer", "beat", "--loglevel=warning",
             "-s", str(work_dir / "celerybeat-schedule")],
            env, work_dir / "beat.log",
        )  # fmt: skip
        processes += [gunicorn, beat]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/healthz", headers=PROXY_HEADERS, timeout=2).is_success:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        manage(env, "shell", "-c", ENQUEUE.replace("RUN", str(seed["run"])))
        say(f"drill: {seconds}s, {clients} clients, {works} works importing, {base}")
        recorder = Recorder()
        until = time.monotonic() + seconds
        members = seed["members"]
        threads = [
            threading.Thread(
                target=member_journey, args=(base, recorder, seed, members[n], until), daemon=True
            )
            for n in range(min(len(members), clients // 2))
        ]
        threads += [
            threading.Thread(
                target=browse, args=(Visitor(base, recorder), seed, until, n * 5), daemon=True
            )
            for n in range(clients - len(threads))
        ]
        for thread in threads:
            thread.start()
        faults = run_timeline(seconds, postgres, redis, worker, respawn)
        for thread in threads:
            thread.join()
        check = wait_for_import(env, postgres, seed, recorder, works)
    finally:
        for process in processes:
            stop(process)
        if redis is not None:
            redis.stop()
        if postgres is not None:
            try:
                postgres.stop("immediate")
            except subprocess.CalledProcessError:
                pass
    report = summarise(recorder.samples, faults, check, seconds)
    REPORT.parent.mkdir(exist_ok=True)
    REPORT.write_text(json.dumps(report, indent=1))
    say(json.dumps(report, indent=1))
    say(f"written to {REPORT}; logs in {work_dir}")
    return 0 if report["passed"] else 1


def wait_for_import(
    env: dict[str, str], postgres: Postgres, seed: dict, recorder: Recorder, works: int
) -> dict:
    """Until the run finishes (5 minutes at most). When it stops moving for 20 s, its messages
    were lost: the stalled-run sweep is run (with the run's clock moved), once."""
    say("waiting for the import to finish (up to 5 minutes) ...")
    deadline = time.monotonic() + 300
    last_read, still_since, swept = -1, time.monotonic(), False
    while True:
        check = writes_check(postgres, seed, recorder, works)
        run = check["import_run"]
        if run.get("status") in ("succeeded", "failed") or time.monotonic() > deadline:
            check["import_resumed_by_the_stalled_run_sweep"] = swept
            return check
        if run.get("read") != last_read:
            last_read, still_since = run.get("read", -1), time.monotonic()
        elif not swept and time.monotonic() - still_since > 20:
            say(f"  the run stopped at {last_read} records: its messages were lost; sweeping")
            manage(env, "shell", "-c", RESUME.replace("RUN", str(seed["run"])))
            swept = True
        time.sleep(2)


def summarise(samples: list[Sample], faults: list[Fault], check: dict, seconds: int) -> dict:
    statuses = Counter(sample.status for sample in samples)
    ends = [fault.down_at for fault in faults[1:]] + [float("inf")]
    recoveries = {
        fault.name: recovery_after(samples, fault.back_at, until)
        for fault, until in zip(faults, ends, strict=True)
    }
    slowest = max((s for kinds in recoveries.values() for s in kinds.values()), default=0.0)
    writes_ok = (
        check["follows_missing"] == 0
        and check["follows_doubled"] == 0
        and check["messages_missing"] == 0
        and check["messages_doubled"] == 0
        and check["messages_refused_but_stored"] == 0
        and check["import_run"].get("status") == "succeeded"
        and check["imported_works_rows"]
        == check["imported_works_distinct"]
        == check["imported_works_expected"]
    )
    return {
        "seconds": seconds,
        "requests": len(samples),
        "by_status": {str(status): count for status, count in sorted(statuses.items())},
        "server_errors_500": statuses.get(500, 0),
        "failures_by_fault": {
            fault.name: failures_during(samples, fault, until)
            for fault, until in zip(faults, ends, strict=True)
        },
        "longest_failing_stretch_seconds": failing_stretches(samples),
        "seconds_to_answer_again_after": recoveries,
        "slowest_recovery_seconds": slowest,
        "writes": check,
        "passed": statuses.get(500, 0) == 0 and writes_ok and slowest <= RECOVERY_TARGET_SECONDS,
    }


if __name__ == "__main__":
    sys.exit(main())
