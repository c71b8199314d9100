"""Keep serving through faults (issue 29): the site under gunicorn against a PostgreSQL cluster
and a Redis of the test's own (cache, sessions and broker), each stopped and started again
while the site runs.

- Redis down: the public pages, search and the API lists answer 200 from the database; a
  signed-in person stays signed in, also once Redis is back empty; sign-in is still limited
  (counted in PostgreSQL meanwhile); a follow commits although its follow-up cannot be queued.
- PostgreSQL down: 503 with Retry-After and a short message (HTML, and JSON under /api/),
  never 500; /readyz 503, /healthz 200; once it is back the same process answers 200 again.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from django.conf import settings

from tests.bzpeer.servers import (
    POSTGRES_BIN,
    Cluster,
    RedisServer,
    Site,
    common_settings,
    free_port,
    missing,
    run_as_server_user,
    server_folder,
)
from tests.support.template_database import template_load_into

pytestmark = pytest.mark.server

DATABASE = "bzpeer"
METRICS_TOKEN = "faults-test-" + secrets.token_hex(8)
PASSWORD = "correct horse battery staple"  # noqa: S105 (UserFactory's)
LOCKED = "Too many failed login attempts"

# Run by manage.py shell: a researcher with a work, alice (verified) and her signed-in session
# (in the session engine of the settings: cached_db), as JSON on stdout.
SEED = """
import json
from importlib import import_module
from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from tests.factories import (
    AuthorshipFactory, ResearcherFactory, SourceFactory, UserFactory, WorkFactory,
)

suffix = "SUFFIX"
for factory in (AuthorshipFactory, ResearcherFactory, SourceFactory, UserFactory, WorkFactory):
    factory.reset_sequence(int(suffix, 16) % 10_000_000)
researcher = ResearcherFactory(slug="faults-" + suffix, display_name="Faulty Person " + suffix)
authorship = AuthorshipFactory(researcher=researcher, position=1)
alice = UserFactory(email=f"alice-{suffix}@example.org", username="alice-" + suffix)
EmailAddress.objects.create(user=alice, email=alice.email, verified=True, primary=True)
session = import_module(settings.SESSION_ENGINE).SessionStore()
session[SESSION_KEY] = str(alice.pk)
session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
session[HASH_SESSION_KEY] = alice.get_session_auth_hash()
session.create()
print(json.dumps({
    "slug": researcher.slug, "work": authorship.work_id, "session": session.session_key,
    "email": alice.email, "researcher": researcher.pk, "user": alice.pk,
}))
"""


@dataclass
class Stack:
    cluster: Cluster
    redis: RedisServer
    site: Site

    def client(self, session: str | None = None) -> httpx.Client:
        csrf = secrets.token_hex(16)  # 32 characters: Django takes the secret itself as token
        cookies = {"csrftoken": csrf}
        if session:
            cookies["sessionid"] = session
        return httpx.Client(
            base_url=self.site.base_url,
            cookies=cookies,
            headers={"X-CSRFToken": csrf, "Referer": self.site.base_url + "/"},
            timeout=30,
        )

    def sql(self, query: str, *params: object) -> list[tuple]:
        with self.cluster.connect(DATABASE) as connection:
            return connection.execute(query, params).fetchall()


@pytest.fixture(scope="module")
def stack(tmp_path_factory) -> Iterator[Stack]:
    for binary in ("initdb", "pg_ctl"):
        if not (POSTGRES_BIN / binary).exists():
            missing(f"PostgreSQL's {binary} ({POSTGRES_BIN})")
    folder = server_folder("bzpeer-faults-test-")
    cluster = Cluster(folder / "primary", free_port())
    redis = RedisServer(tmp_path_factory.mktemp("redis"))
    site = Site(
        {
            "DATABASE_URL": cluster.url(DATABASE),
            "TEST_REDIS_URL": redis.url(),
            "METRICS_TOKEN": METRICS_TOKEN,
            # Kept connections, as in production: they must survive the restart by themselves.
            "DB_CONN_MAX_AGE": "600",
        },
        tmp_path_factory.mktemp("site") / "gunicorn.log",
    )
    try:
        run_as_server_user(["mkdir", str(cluster.folder)])
        run_as_server_user(
            [str(POSTGRES_BIN / "initdb"), "-D", str(cluster.data), "-U", "postgres"]
            + ["--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"]
        )
        cluster.configure(
            **{**common_settings(cluster.folder, cluster.port), "log_statement": "'none'"}
        )
        cluster.start()
        redis.start()
        with cluster.connect() as connection:
            connection.execute(f"CREATE DATABASE {DATABASE}")
        # The migrated template, copied in (the site's `migrate` would find nothing to do).
        template_load_into(
            cluster.url(DATABASE),
            test_database_name=settings.TEST_DATABASE_NAME,
            postgres_bin=POSTGRES_BIN,
        )
        site.start()
        yield Stack(cluster, redis, site)
    finally:
        site.stop()
        redis.stop()
        cluster.stop()
        run_as_server_user(["rm", "-rf", str(folder)])


@pytest.fixture
def seeded(stack: Stack) -> dict:
    output = stack.site.manage("shell", "-c", SEED.replace("SUFFIX", secrets.token_hex(4)))
    return json.loads(output.strip().splitlines()[-1])


@pytest.fixture
def redis_down(stack: Stack) -> Iterator[None]:
    stack.redis.stop()
    try:
        yield
    finally:
        if stack.redis.process is None:
            stack.redis.start()


def _public_urls(seeded: dict) -> list[str]:
    return [
        "/",
        f"/researchers/{seeded['slug']}/",
        f"/works/{seeded['work']}/",
        "/search/?q=Faulty",
        "/api/v1/researchers/",
        "/api/v1/works/",
        f"/api/v1/researchers/{seeded['slug']}/works/",
    ]


def _signed_in(client: httpx.Client) -> bool:
    response = client.get("/account/")
    assert response.status_code in (200, 302), response.status_code
    return response.status_code == 200


def test_with_redis_stopped_the_public_pages_search_and_api_lists_answer_200(
    stack, seeded, redis_down
):
    with stack.client() as anonymous:
        statuses = {url: anonymous.get(url).status_code for url in _public_urls(seeded)}

    assert statuses == dict.fromkeys(_public_urls(seeded), 200)


def test_readiness_reports_redis_as_degraded_without_taking_the_node_out(stack, seeded, redis_down):
    with stack.client() as anonymous:
        ready = anonymous.get("/readyz")
        metrics = anonymous.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})

    assert ready.status_code == 200
    assert ready.json()["status"] == "degraded"
    assert ready.json()["degraded"] == ["broker", "cache"]
    assert metrics.status_code == 200
    assert 'bzpeer_dependency_up{dependency="cache"} 0.0' in metrics.text
    assert 'bzpeer_dependency_up{dependency="postgres:default"} 1.0' in metrics.text


def test_a_signed_in_person_stays_signed_in_through_an_outage_and_an_empty_restart(stack, seeded):
    with stack.client(seeded["session"]) as alice:
        assert _signed_in(alice)
        stack.redis.stop()
        try:
            assert _signed_in(alice)
        finally:
            stack.redis.start()
        # Back, and empty: the session is read from PostgreSQL again.
        assert stack.redis.process is not None
        assert _signed_in(alice)


def test_sign_in_is_still_limited_while_redis_is_down(stack, seeded, redis_down):
    with stack.client() as attacker:
        pages = [
            attacker.post("/accounts/login/", data={"login": seeded["email"], "password": f"x{n}"})
            for n in range(6)
        ]
        assert [page.status_code for page in pages] == [200] * 6
        assert LOCKED not in pages[4].text
        assert LOCKED in pages[5].text
        # Locked: the right password from this address does not sign in either.
        right = attacker.post(
            "/accounts/login/", data={"login": seeded["email"], "password": PASSWORD}
        )
        assert right.status_code == 200 and LOCKED in right.text
    # The attempts were counted in PostgreSQL meanwhile.
    assert stack.sql("SELECT count(*) FROM users_ratelimitentry")[0][0] > 0


def test_a_follow_commits_while_the_broker_is_down(stack, seeded, redis_down):
    with stack.client(seeded["session"]) as alice:
        response = alice.post(f"/researchers/{seeded['slug']}/follow/", data={})

    assert response.status_code == 302, response.text[:2000]
    follows = stack.sql(
        "SELECT count(*) FROM researchers_follow WHERE user_id = %s AND researcher_id = %s",
        seeded["user"],
        seeded["researcher"],
    )
    assert follows == [(1,)]


def test_during_a_postgresql_restart_requests_answer_503_and_recover_by_themselves(stack, seeded):
    with stack.client(seeded["session"]) as alice, stack.client() as anonymous:
        assert alice.get("/account/").status_code == 200
        stack.cluster.stop()
        try:
            html = alice.get("/account/")
            api = anonymous.get("/api/v1/researchers/")
            ready = anonymous.get("/readyz")
            alive = anonymous.get("/healthz")
        finally:
            stack.cluster.start()
        assert html.status_code == 503 and html.headers["Retry-After"] == "5"
        assert "back in a moment" in html.text
        assert api.status_code == 503 and api.headers["Retry-After"] == "5"
        assert "database is unavailable" in api.json()["detail"]
        assert ready.status_code == 503 and ready.json()["failed"] == ["postgres:default"]
        assert alive.status_code == 200
        # The same gunicorn process, no restart: back on the first request after the server.
        deadline = time.monotonic() + 10
        statuses = []
        while time.monotonic() < deadline:
            statuses.append(alice.get("/account/").status_code)
            if statuses[-1] == 200:
                break
        assert statuses[-1] == 200, statuses
        assert 500 not in statuses
        assert anonymous.get("/api/v1/researchers/").status_code == 200
