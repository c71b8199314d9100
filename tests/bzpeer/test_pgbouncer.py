"""PgBouncer in transaction pooling mode (issue 16): Debian's pgbouncer in front of the test
database, and the site's page, claim and import paths run through it by a separate process
with DB_PREPARE_THRESHOLD=0, as the web and worker processes of a pooled deployment run.

In transaction mode a server connection serves another client after each transaction, so
nothing may outlive one: no prepared statements (prepare_threshold=None) and no server-side
cursors held open between transactions (DISABLE_SERVER_SIDE_CURSORS). The script below runs
more than the default threshold's five executions of each statement and a QuerySet.iterator(),
which would fail ("prepared statement ... does not exist", "cursor ... does not exist") if
either were left on.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from tests.conftest import FIXTURES_DIR, REPO_ROOT
from tests.factories import AuthorshipFactory, ResearcherFactory
from tests.support.people import make_member

from .servers import (
    POSTGRES_BIN,
    free_port,
    missing,
    popen_as_server_user,
    run_as_server_user,
    server_folder,
    wait_for_port,
)

pytestmark = [pytest.mark.server, pytest.mark.django_db(transaction=True)]

POOLED_DATABASE = "bzpeer"

# Run by manage.py shell through the pooler; prints what it saw as JSON.
SMOKE = """
import json
from django.core.management import call_command
from django.db import connection
from django.test import Client
from claims.models import Claim
from publications.models import Work
from ingest.models import ImportRun
from bzpeer.users.models import User

slug, email = "SLUG", "EMAIL"
seen = {
    "port": connection.settings_dict["PORT"],
    "prepare_threshold": connection.settings_dict["OPTIONS"]["prepare_threshold"],
    "server_side_cursors_off": connection.settings_dict["DISABLE_SERVER_SIDE_CURSORS"],
}
client = Client(SERVER_NAME="127.0.0.1")  # an ALLOWED_HOSTS name
seen["anonymous_pages"] = [client.get(f"/researchers/{slug}/?page={n}").status_code
                           for n in range(1, 9)]
client.force_login(User.objects.get(email=email))
seen["signed_in_pages"] = [client.get(f"/researchers/{slug}/").status_code for _ in range(8)]
seen["claim"] = client.post(
    f"/claims/researchers/{slug}/claim/",
    {
        "claimant_name": "Alice Liddell",
        "statement": "I wrote these papers at Wonderland University, 2019 to 2023.",
        "presented_email": email,
        "evidence_links": "https://wonderland.example.edu/~alice",
    },
).status_code
seen["claims"] = Claim.objects.filter(researcher__slug=slug).count()
call_command("import_openalex", "WORKS_FILE", sync=True, no_progress=True)
run = ImportRun.objects.latest("id")
seen["import"] = [run.status, run.created_count, run.failed_count]
seen["iterated"] = sum(1 for _ in Work.objects.order_by("id").iterator(chunk_size=2))
print(json.dumps(seen))
"""


@pytest.fixture
def pooler(tmp_path: Path) -> Iterator[int]:
    binary = shutil.which("pgbouncer") or (
        "/usr/sbin/pgbouncer" if Path("/usr/sbin/pgbouncer").exists() else None
    )
    if binary is None:
        missing("pgbouncer (apt-get install pgbouncer)")
    database = connection.settings_dict
    folder = server_folder("bzpeer-pgbouncer-test-")
    port = free_port()
    server = (
        f"host={database['HOST'] or '127.0.0.1'} port={database['PORT'] or 5432} "
        f"dbname={database['NAME']} user={database['USER']}"
        + (f" password={database['PASSWORD']}" if database["PASSWORD"] else "")
    )
    config = folder / "pgbouncer.ini"
    config_text = f"""
[databases]
{POOLED_DATABASE} = {server}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = any
admin_users = {database["USER"]}
pool_mode = transaction
default_pool_size = 4
server_round_robin = 1
max_client_conn = 200
ignore_startup_parameters = extra_float_digits,options
logfile = {folder}/pgbouncer.log
pidfile = {folder}/pgbouncer.pid
"""
    run_as_server_user(["tee", str(config)], input=config_text)
    process = popen_as_server_user([binary, str(config)])
    try:
        wait_for_port(port, what="pgbouncer")
        _open_server_connections(port, database["USER"], count=4)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)
        run_as_server_user(["rm", "-rf", str(folder)])


def _open_server_connections(port: int, user: str, *, count: int) -> None:
    """Make the pool hold `count` server connections: with server_round_robin, consecutive
    transactions of one client then land on different ones, as they do under load, so
    anything kept on a server connection between transactions is lost at once."""
    url = f"postgres://{user}@127.0.0.1:{port}/{POOLED_DATABASE}"
    clients = [psycopg.connect(url, prepare_threshold=None) for _ in range(count)]
    for client in clients:
        client.execute("SELECT 1")  # each holds its transaction, so each needs its own server
    for client in clients:
        client.commit()  # a client leaving mid-transaction would take its server with it
        client.close()


def _pooler_stats(port: int) -> dict[str, str]:
    psql = POSTGRES_BIN / "psql"
    result = subprocess.run(
        [str(psql), "-h", "127.0.0.1", "-p", str(port), "-U", connection.settings_dict["USER"]]
        + ["-d", "pgbouncer", "-A", "-F", "\t", "-c", "SHOW STATS"],
        capture_output=True,
        text=True,
        check=True,
    )
    header, *rows = result.stdout.splitlines()
    for row in rows:
        values = dict(zip(header.split("\t"), row.split("\t"), strict=False))
        if values.get("database") == POOLED_DATABASE:
            return values
    raise AssertionError(result.stdout)


def test_the_page_claim_and_import_paths_run_through_pgbouncer_in_transaction_mode(pooler):
    researcher = ResearcherFactory()
    AuthorshipFactory.create_batch(3, researcher=researcher)
    alice = make_member("alice@example.org", display_name="Alice Liddell")
    script = (
        SMOKE.replace("SLUG", researcher.slug)
        .replace("EMAIL", alice.email)
        .replace("WORKS_FILE", str(FIXTURES_DIR / "openalex" / "works_good.jsonl"))
    )
    database = connection.settings_dict
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bzpeer.settings.test",
        "DATABASE_URL": f"postgres://{database['USER']}@127.0.0.1:{pooler}/{POOLED_DATABASE}",
        "DB_PREPARE_THRESHOLD": "0",
    }

    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=REPO_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )

    assert result.returncode == 0, result.stderr[-4000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["port"] == pooler
    assert seen["prepare_threshold"] is None and seen["server_side_cursors_off"] is True
    assert seen["anonymous_pages"] == [200] * 8
    assert seen["signed_in_pages"] == [200] * 8
    assert seen["claim"] == 302 and seen["claims"] == 1
    status, created, failed = seen["import"]
    assert (status, failed) == ("succeeded", 0) and created > 0
    assert seen["iterated"] == 3 + created
    stats = _pooler_stats(pooler)
    # Every statement went through the pooler, in many short transactions.
    assert int(stats["total_xact_count"]) > 50, stats
