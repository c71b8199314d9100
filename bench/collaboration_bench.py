"""Direct collaboration under a large inbox: the inbox page, a conversation page of 200
messages and sending a message, beside a trivial view, in one run.

    python -m bench.collaboration_bench [--database bzpeer_bench_collab]
        [--users 500] [--conversations 2000] [--messages 20000] [--big-user-conversations 1000]
        [--runs 200] [--template bzpeer_bench]

The figures the issue asks for are meant for the 1M-work corpus with 50,000 claimed users,
200,000 conversations and 2,000,000 messages, one user holding 10,000 conversations:

    python -m bench.collaboration_bench --template bzpeer_bench --users 50000 \\
        --conversations 200000 --messages 2000000 --big-user-conversations 10000

The defaults are a smoke run of a few seconds. The database (its name must contain "bench") is
created when missing, as a copy of --template when given (the import bench's corpus, so the
claimed records are real ones) or empty, and migrated. Then, with set-based SQL
(generate_series, no ORM row by row): --users accounts, each with an approved L3 claim on a
record (existing records first, generated ones when the corpus has too few); conversations
with their accepted invitations and both participant rows, user 1 in --big-user-conversations
of them; the messages spread over the conversations, with 250 in user 1's first conversation;
30 pending invitations received and 30 sent by user 1. The collaboration tables, claims and
accounts of the previous run are emptied first; the corpus itself (works, researchers) is only
read, and the claims set on records are cleared.

Measured in this process through Django's test client, settings as in production (DEBUG off),
Redis database 12 for the cache and sessions:
- the inbox of user 1 (page 1) and a conversation page of 200 messages, their query counts
  compared with those of a user with a single conversation (they must be equal), p50/p99
  cold (the database connection closed before every request, so each opens a fresh one, and
  no cache but the session) and warm (one connection kept);
- sending a message, the POST of the page (the message row, the conversation's last activity
  and both participants' unread bookkeeping in one transaction), p50/p99;
- /healthz, the trivial view, in the same regimes: the framework's ceiling;
- beside each wall-clock figure, the median CPU time of this process per request (cold and
  warm): on a machine others load, what the request itself costs.
Figures, not a verdict: nothing asserts a duration. Writes bench-data/collaboration-report.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import psycopg

from bench import smoke
from bench.harness import checkpoint, migrate, static_collect

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "bench-data"
SERVER_URL = "postgres://postgres@127.0.0.1:5432"
BIG_CONVERSATION_MESSAGES = 250
PENDING_EACH_WAY = 30
PURPOSE = (
    "A benchmark invitation: shall we write a joint paper on the scheduling of collective "
    "communication in training clusters?"
)


def say(text: str = "") -> None:
    print(text, flush=True)  # noqa: T201


def _machine() -> dict[str, object]:
    meminfo = Path("/proc/meminfo").read_text() if Path("/proc/meminfo").exists() else ""
    total_kb = next(
        (int(line.split()[1]) for line in meminfo.splitlines() if line.startswith("MemTotal")), 0
    )
    return {
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "ram_gb": round(total_kb / 1024 / 1024, 1),
        "python": platform.python_version(),
        "load_average": os.getloadavg(),
    }


def _ensure_database(name: str, template: str | None) -> str:
    if "bench" not in name:
        raise SystemExit(f"--database must contain 'bench' (got {name!r}): it is rewritten")
    with psycopg.connect(f"{SERVER_URL}/postgres", autocommit=True) as server:
        exists = server.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            clause = f' TEMPLATE "{template}"' if template else ""
            say(f"creating database {name}{' from ' + template if template else ''} ...")
            server.execute(f'CREATE DATABASE "{name}"{clause}')
    url = f"{SERVER_URL}/{name}"
    migrate({**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "bzpeer.settings.local"})
    return url


def _referencing_tables(connection: psycopg.Connection, table: str) -> list[str]:
    rows = connection.execute(
        "SELECT DISTINCT conrelid::regclass::text FROM pg_constraint "
        "WHERE contype = 'f' AND confrelid = %s::regclass",
        [table],
    ).fetchall()
    return sorted(row[0] for row in rows)


def _previous_run_clear(db: psycopg.Connection) -> None:
    # Empty what a previous run left, without touching the corpus: every table that points
    # at an account except the researchers (whose claims are cleared instead).
    db.execute(
        "UPDATE researchers_researcher SET claimed_by_id = NULL WHERE claimed_by_id IS NOT NULL"
    )
    doomed = [t for t in _referencing_tables(db, "users_user") if t != "researchers_researcher"]
    doomed += [
        "collaboration_conversation",
        "collaboration_message",
        "collaboration_invitation",
    ]
    db.execute(f"TRUNCATE {', '.join(sorted(set(doomed)))} CASCADE")
    db.execute("DELETE FROM users_user")


def _people_create(db: psycopg.Connection, params: dict) -> None:
    """The accounts, a claimed record for each (the corpus's first, or new ones)."""
    db.execute(
        """
        INSERT INTO users_user (id, password, is_superuser, username, first_name, last_name,
                                is_staff, is_active, date_joined, email, display_name)
        SELECT g, '!', false, 'collabbench' || g, '', '', false, true, now(),
               'collabbench' || g || '@example.org', 'Bench Person ' || g
        FROM generate_series(1, %(users)s) g""",
        params,
    )
    db.execute("SELECT setval(pg_get_serial_sequence('users_user', 'id'), %(users)s)", params)
    # Records to claim: the corpus's first, generated ones when it has too few.
    db.execute(
        """
        INSERT INTO researchers_researcher (slug, display_name, name_normalized, alternate_names,
            tagline, open_to_collaborate, homepage, verification_level, trust_score,
            trust_breakdown, works_count, cited_by_count, h_index, i10_index, topics_count,
            followers_count, citations_by_year, content_hash, created_at, updated_at, links)
        SELECT 'collab-bench-' || (n.existing + g), 'Bench Person ' || g, 'bench person ' || g, '{}', '',
               false, '', 3, 0, '{}', 0, 0, 0, 0, 0, 0, '{}', '', now(), now(), '[]'
        FROM (SELECT count(*) AS existing FROM researchers_researcher) n,
             generate_series(1, GREATEST(0, %(users)s - (SELECT count(*) FROM researchers_researcher
                                                        WHERE merged_into_id IS NULL))) g""",
        params,
    )
    db.execute(
        """
        CREATE TEMP TABLE bench_people AS
        SELECT row_number() OVER (ORDER BY id) AS user_id, id AS researcher_id
        FROM (SELECT id FROM researchers_researcher WHERE merged_into_id IS NULL
              ORDER BY id LIMIT %(users)s) r""",
        params,
    )
    db.execute("CREATE UNIQUE INDEX ON bench_people (user_id)")
    db.execute("""
        UPDATE researchers_researcher r SET claimed_by_id = p.user_id, verification_level = 3
        FROM bench_people p WHERE r.id = p.researcher_id""")
    db.execute("""
        INSERT INTO claims_claim (status, level, claimant_name, statement, evidence_links,
            presented_email, approved_via, moderation_note, decision_reason, created_at,
            updated_at, researcher_id, user_id)
        SELECT 'approved', 3, 'Bench Person ' || user_id, 'benchmark claim', '[]', '',
               'moderator', '', '', now(), now(), researcher_id, user_id
        FROM bench_people""")


def _conversations_create(db: psycopg.Connection, params: dict) -> None:
    """The conversations with their accepted invitations, messages and both participants."""
    # Conversation i: user 1 with someone for i <= big; two others (never user 1) after.
    db.execute(
        """
        CREATE TEMP TABLE bench_conversations AS
        SELECT i AS id,
               CASE WHEN i <= %(big)s THEN 1 ELSE 2 + (i * 7919) %% (%(users)s - 1) END AS a,
               CASE WHEN i <= %(big)s THEN 2 + (i - 1) %% (%(users)s - 1)
                    ELSE 2 + (i * 7919 + 1 + i %% (%(users)s - 2)) %% (%(users)s - 1) END AS b
        FROM generate_series(1, %(conversations)s) i""",
        params,
    )
    db.execute("""
        INSERT INTO collaboration_conversation (id, created_at, last_message_at)
        SELECT id, now() - interval '400 days', NULL FROM bench_conversations""")
    db.execute(
        """
        SELECT setval(pg_get_serial_sequence('collaboration_conversation', 'id'), %(conversations)s)""",
        params,
    )
    db.execute(
        """
        INSERT INTO collaboration_invitation (sender_id, recipient_id, sender_researcher_id,
            recipient_researcher_id, kind, purpose, status, created_at, expires_at,
            responded_at, conversation_id)
        SELECT c.a, c.b, pa.researcher_id, pb.researcher_id, 'coauthor', %(purpose)s,
               'accepted', now() - interval '400 days', now() - interval '370 days',
               now() - interval '399 days', c.id
        FROM bench_conversations c
        JOIN bench_people pa ON pa.user_id = c.a JOIN bench_people pb ON pb.user_id = c.b""",
        params,
    )
    # Messages: 250 in the first conversation, the rest spread evenly; ids in time order.
    db.execute(
        """
        INSERT INTO collaboration_message (conversation_id, author_id, body, created_at)
        SELECT c.id, CASE WHEN j %% 2 = 0 THEN c.a ELSE c.b END,
               'Bench message ' || j || ': the draft is at https://example.org/drafts/' || j
               || ' and I added the figures we discussed.',
               now() - make_interval(secs => %(messages)s - j)
        FROM generate_series(1, %(messages)s) j
        JOIN bench_conversations c ON c.id = CASE WHEN j <= %(big_messages)s THEN 1
             ELSE 1 + j %% %(conversations)s END""",
        params,
    )
    db.execute("""
        UPDATE collaboration_conversation c SET last_message_at = m.last
        FROM (SELECT conversation_id, max(created_at) AS last FROM collaboration_message
              GROUP BY conversation_id) m
        WHERE c.id = m.conversation_id""")
    # Both sides; the b side of every third conversation has two unread messages.
    db.execute("""
        INSERT INTO collaboration_conversationparticipant (conversation_id, user_id,
            researcher_id, unread_count, unread_since, last_read_at, muted, last_emailed_at,
            last_message_at)
        SELECT c.id, side.user_id, p.researcher_id,
               CASE WHEN side.is_b AND c.id % 3 = 0 THEN 2 ELSE 0 END,
               CASE WHEN side.is_b AND c.id % 3 = 0 THEN conv.last_message_at END,
               conv.last_message_at, c.id % 17 = 0, NULL, conv.last_message_at
        FROM bench_conversations c
        JOIN collaboration_conversation conv ON conv.id = c.id
        CROSS JOIN LATERAL (VALUES (c.a, false), (c.b, true)) AS side(user_id, is_b)
        JOIN bench_people p ON p.user_id = side.user_id""")


def _pending_invitations_create(db: psycopg.Connection, params: dict) -> None:
    # Pending invitations of user 1: received from users 2..31, sent to users 32..61.
    db.execute(
        """
        INSERT INTO collaboration_invitation (sender_id, recipient_id, sender_researcher_id,
            recipient_researcher_id, kind, purpose, status, created_at, expires_at)
        SELECT s.user_id, r.user_id, s.researcher_id, r.researcher_id, 'review', %(purpose)s,
               'pending', now() - make_interval(hours => g), now() + interval '29 days'
        FROM generate_series(1, 2 * %(pending)s) g
        JOIN bench_people s ON s.user_id = CASE WHEN g <= %(pending)s THEN g + 1 ELSE 1 END
        JOIN bench_people r ON r.user_id = CASE WHEN g <= %(pending)s THEN 1 ELSE g + 1 END""",
        params,
    )


def _generate(url: str, *, users: int, conversations: int, messages: int, big: int) -> dict:
    """The corpus, set-based. Returns the ids the measurements use."""
    if users < 2 + 2 * PENDING_EACH_WAY:
        raise SystemExit(f"--users must be at least {2 + 2 * PENDING_EACH_WAY}")
    if big >= conversations:
        raise SystemExit("--big-user-conversations must be fewer than --conversations")
    params = {"users": users, "conversations": conversations, "messages": messages, "big": big,
              "big_messages": BIG_CONVERSATION_MESSAGES, "purpose": PURPOSE,
              "pending": PENDING_EACH_WAY}  # fmt: skip
    with psycopg.connect(url) as db:
        started = time.monotonic()
        _previous_run_clear(db)
        _people_create(db, params)
        _conversations_create(db, params)
        _pending_invitations_create(db, params)
        db.commit()
        generated_seconds = time.monotonic() - started
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(
            "VACUUM ANALYZE users_user, claims_claim, researchers_researcher,"
            " collaboration_conversation, collaboration_conversationparticipant,"
            " collaboration_message, collaboration_invitation"
        )
        checkpoint(db)
    return {**_survey(url), "generated_seconds": round(generated_seconds, 1)}


def _survey(url: str) -> dict:
    """What the measurements need of the corpus in place: its counts, the user with the fewest
    conversations and user 1's shortest conversation (to compare query counts with)."""
    with psycopg.connect(url, autocommit=True) as db:
        small_user = db.execute("""
            SELECT user_id, count(*) FROM collaboration_conversationparticipant
            WHERE user_id IS NOT NULL GROUP BY user_id
            ORDER BY count(*), user_id LIMIT 1""").fetchone()
        small_conversation = db.execute("""
            SELECT p.conversation_id, count(m.id) FROM collaboration_conversationparticipant p
            JOIN collaboration_message m ON m.conversation_id = p.conversation_id
            WHERE p.user_id = 1 AND p.conversation_id > 1
            GROUP BY p.conversation_id ORDER BY count(m.id), p.conversation_id LIMIT 1""").fetchone()
        if small_user is None or small_conversation is None:
            raise SystemExit("no corpus in this database: run without --skip-generate first")
        counts = {
            table: db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: S608
            for table in ("users_user", "collaboration_conversation", "collaboration_message",
                          "collaboration_invitation", "researchers_researcher", "publications_work")
        }  # fmt: skip
        counts["big_user_conversations"] = db.execute(
            "SELECT count(*) FROM collaboration_conversationparticipant WHERE user_id = 1"
        ).fetchone()[0]
        counts["big_conversation_messages"] = db.execute(
            "SELECT count(*) FROM collaboration_message WHERE conversation_id = 1"
        ).fetchone()[0]
    return {
        "counts": counts,
        "generated_seconds": None,
        "small_user": small_user[0],
        "small_user_conversations": small_user[1],
        "small_conversation": small_conversation[0],
        "small_conversation_messages": small_conversation[1],
    }


def _percentiles(samples: list[float], cpu: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    # This process's CPU time (not PostgreSQL's): on a machine loaded by others the wall-clock
    # figures mostly measure waiting for a core; this is what the request itself costs.
    return {"p50_ms": round(statistics.median(ordered), 2), "p99_ms": round(p99, 2),
            "cpu_p50_ms": round(statistics.median(cpu), 2), "runs": len(ordered)}  # fmt: skip


def _measure(options: argparse.Namespace, corpus: dict) -> dict:
    """Django set up in this process on the bench database; every figure in milliseconds."""
    import django

    django.setup()
    from django.db import connection, connections
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from bzpeer.users.models import User

    def client_for(user_id: int) -> Client:
        client = Client()
        client.force_login(User.objects.get(pk=user_id))
        return client

    def timed(request: Callable[[], object], *, cold: bool, runs: int, status: int = 200):
        samples, cpu = [], []
        for _ in range(runs):
            if cold:
                connections.close_all()
            started, cpu_started = time.perf_counter(), time.process_time()
            response = request()
            samples.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - cpu_started) * 1000)
            if response.status_code != status:  # type: ignore[attr-defined]
                raise SystemExit(f"unexpected answer {response.status_code}")  # type: ignore[attr-defined]
        return _percentiles(samples, cpu)

    def queries(client: Client, url: str) -> int:
        client.get(url)  # the session loaded once, as on any page after the first
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        return len(captured.captured_queries)

    big, small = client_for(1), client_for(corpus["small_user"])
    inbox = reverse("collaboration:inbox")
    big_thread = reverse("collaboration:conversation", args=[1])
    small_thread = reverse("collaboration:conversation", args=[corpus["small_conversation"]])
    query_counts = {
        "inbox_big_user": queries(big, inbox),
        "inbox_user_with_fewest_conversations": queries(small, inbox),
        "fewest_conversations": corpus["small_user_conversations"],
        "conversation_200_messages": queries(big, big_thread),
        "conversation_fewest_messages": queries(big, small_thread),
        "fewest_messages": corpus["small_conversation_messages"],
    }
    anyone = Client()
    healthz = reverse("healthz")
    send = reverse("collaboration:message-send", args=[1])
    runs = options.runs
    figures: dict[str, dict[str, float]] = {}
    for regime in ("cold", "warm"):
        cold = regime == "cold"
        say(f"measuring, {regime} ({runs} requests each) ...")
        figures[f"trivial_{regime}"] = timed(lambda: anyone.get(healthz), cold=cold, runs=runs)
        figures[f"inbox_{regime}"] = timed(lambda: big.get(inbox), cold=cold, runs=runs)
        figures[f"conversation_200_{regime}"] = timed(
            lambda: big.get(big_thread), cold=cold, runs=runs
        )
        figures[f"send_{regime}"] = timed(
            lambda: big.post(send, {"body": "A benchmark message with https://example.org/x"}),
            cold=cold, runs=runs, status=302,
        )  # fmt: skip
    return {"queries": query_counts, "figures": figures}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="bzpeer_bench_collab")
    parser.add_argument(
        "--template", default=None, help="create the database as a copy of this one"
    )
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=20000)
    parser.add_argument("--big-user-conversations", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--redis-db", type=int, default=12)
    parser.add_argument(
        "--skip-generate",
        action="store_true",
        help="measure the corpus already in --database (migrated first), without rebuilding it",
    )
    smoke.add_argument(parser)
    options = parser.parse_args(argv)
    if options.smoke:  # the fewest users the generator takes (2 + 2 x 30 pending invitations)
        smoke.apply(
            parser,
            options,
            database=smoke.default_database("collaboration"),
            users=2 + 2 * PENDING_EACH_WAY,
            conversations=40,
            messages=400,
            big_user_conversations=20,
            runs=3,
        )
        smoke.begin(options.database, redis_db=options.redis_db)

    url = _ensure_database(options.database, options.template)
    if options.skip_generate:
        corpus = _survey(url)
        say(f"measuring the corpus in place: {corpus['counts']}")
    else:
        say(f"generating {options.users:,} users, {options.conversations:,} conversations, "
            f"{options.messages:,} messages ...")  # fmt: skip
        corpus = _generate(url, users=options.users, conversations=options.conversations,
                           messages=options.messages, big=options.big_user_conversations)  # fmt: skip
        say(f"generated in {corpus['generated_seconds']} s: {corpus['counts']}")

    static_root = Path(tempfile.mkdtemp(prefix="bzpeer-collab-bench-static-"))
    redis_url = f"redis://127.0.0.1:6379/{options.redis_db}"
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "bzpeer.settings.production", "DATABASE_URL": url,
        "SECRET_KEY": "bench-only-" + "x" * 50, "ALLOWED_HOSTS": "testserver,127.0.0.1",
        "SECURE_SSL_REDIRECT": "false", "STATIC_ROOT": str(static_root), "LOG_LEVEL": "WARNING",
        "REDIS_URL": redis_url, "CELERY_BROKER_URL": redis_url,
        "CELERY_DEFAULT_QUEUE": (
            smoke.key_prefix(options.database) if options.smoke else "bzpeer-bench-collab"
        ),
    })  # fmt: skip
    static_collect(os.environ.copy())
    load_before = os.getloadavg()
    measured = _measure(options, corpus)
    report = {
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": _machine(),
        "load_average_before": load_before,
        "corpus": corpus["counts"],
        "generated_seconds": corpus["generated_seconds"],
        "client": "django.test.Client in one process, settings production (DEBUG off)",
        **measured,
    }
    DATA_DIR.mkdir(exist_ok=True)
    (DATA_DIR / "collaboration-report.json").write_text(json.dumps(report, indent=2))

    machine = report["machine"]
    say()
    say(f"machine     {machine['cores']} cores, {machine['ram_gb']} GB RAM, load {load_before[0]:.1f}"
        f" before / {machine['load_average'][0]:.1f} after")  # type: ignore[index]  # fmt: skip
    counts = corpus["counts"]
    say(f"corpus      {counts['users_user']:,} users, {counts['collaboration_conversation']:,} "
        f"conversations, {counts['collaboration_message']:,} messages; user 1 in "
        f"{counts['big_user_conversations']:,} conversations; {counts['researchers_researcher']:,} "
        f"researchers, {counts['publications_work']:,} works")  # fmt: skip
    query_counts = measured["queries"]
    say(f"queries     inbox {query_counts['inbox_big_user']} (a user with "
        f"{query_counts['fewest_conversations']}: {query_counts['inbox_user_with_fewest_conversations']}); conversation of 200 messages "
        f"{query_counts['conversation_200_messages']} (of "
        f"{query_counts['fewest_messages']}: {query_counts['conversation_fewest_messages']})")  # fmt: skip
    for name, label in (("trivial", "trivial view"), ("inbox", "inbox page"),
                        ("conversation_200", "conversation, 200"), ("send", "send a message")):  # fmt: skip
        cold, warm = measured["figures"][f"{name}_cold"], measured["figures"][f"{name}_warm"]
        say(f"{label:<18} cold p50 {cold['p50_ms']:>7.2f} ms  p99 {cold['p99_ms']:>7.2f} ms   "
            f"warm p50 {warm['p50_ms']:>7.2f} ms  p99 {warm['p99_ms']:>7.2f} ms   "
            f"CPU p50 {cold['cpu_p50_ms']:>6.2f} / {warm['cpu_p50_ms']:>6.2f} ms")  # fmt: skip
    say("targets: inbox and conversation p99 < 50 ms cold, sending p99 < 30 ms (issue 12)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
