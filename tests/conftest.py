from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

REPO_ROOT = Path(__file__).resolve().parent.parent
# The shared corpus of real records lies beside the checkout; BZPEER_TESTDATA points elsewhere.
TESTDATA_DIR = Path(os.environ.get("BZPEER_TESTDATA", REPO_ROOT.parent / "shared" / "testdata"))
FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"

# alice, bob, charlie, their clients and the moderator, and the demo data, defined once.
pytest_plugins = ["tests.support.people", "tests.support.demo"]


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist each process computes on its share of the cores, as each process of a
    Celery worker's pool does (bzpeer.celery): torch and ONNX Runtime otherwise take a thread per
    core in every process, and two processes of two threads on two cores stall at each other's
    barriers (the full-precision embedding test: 11 s with one thread, 25 s with two, on a
    loaded 2-core machine). Set before torch or ONNX Runtime is imported; a value given wins."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 0)
    if workers > 1:
        os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // workers)))


@pytest.fixture(scope="session")
def testdata_dir() -> Path:
    """The shared real-record corpus. Missing is a skip locally, and a failure under CI=true."""
    if not TESTDATA_DIR.is_dir():
        message = f"shared test corpus not found at {TESTDATA_DIR} (set BZPEER_TESTDATA)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return TESTDATA_DIR


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """Each process's test database is a copy of one migrated template (built once per set of
    migrations, tests/support/template_database.py) instead of 111 migrations run again."""
    from django.conf import settings

    from tests.support.template_database import migrated_template

    test_settings = settings.DATABASES["default"].setdefault("TEST", {})
    test_settings["TEMPLATE"] = migrated_template(settings.TEST_DATABASE_NAME)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker) -> Iterator[None]:
    """pytest-django's, and at the end of the run every other session still open on this
    process's test database is ended before the database is dropped. A test-fast run left
    3 to 18 of them (none was open after any single test; where they come from is not found
    yet): DROP DATABASE then waited 5 s for them, failed with "is being accessed by other
    users" and left the database behind."""
    yield
    from django.db import connection

    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES_DIR


@pytest.fixture
def admin_user(admin_user):
    """pytest-django's superuser, with two-factor authentication on as the admin requires of
    staff (bzpeer.middleware.StaffTwoFactorMiddleware)."""
    from tests.support.people import two_factor_on

    two_factor_on(admin_user)
    return admin_user


@pytest.fixture
def run_import():
    """Run import_openalex --sync on paths; returns the ImportRun it created."""
    from django.core.management import call_command

    from ingest.models import ImportRun

    def run(*paths, **options) -> ImportRun:
        before = ImportRun.objects.order_by("-id").values_list("id", flat=True).first() or 0
        call_command(
            "import_openalex", *[str(p) for p in paths], sync=True, no_progress=True, **options
        )
        return ImportRun.objects.filter(id__gt=before).latest("id")

    return run


@pytest.fixture(autouse=True)
def _fresh_cache_namespace():
    """Each test reads and writes the cache under a namespace of its own, so it never sees the
    entries of the one before (page cache, counters, rate limits, graph slices)."""
    from tests.support.cache_keys import namespace_next

    namespace_next()


@pytest.fixture(autouse=True, scope="session")
def _cache_keys_of_the_run_deleted():
    """The run's keys go once, at its end (the Celery broker shares this Redis database, so
    only keys under the test cache's own prefix are touched), and so do the discovery tasks
    every import's follow-up queued: no worker of the run consumes their queue."""
    yield
    from django.conf import settings
    from django_redis import get_redis_connection

    from bzpeer.celery import app as celery_app

    redis = get_redis_connection("default")
    prefix = settings.CACHES["default"]["KEY_PREFIX"]
    for names in _batched(redis.scan_iter(match=f"{prefix}:*", count=1000), 1000):
        redis.delete(*names)
    with celery_app.connection_for_write() as broker:
        broker.default_channel.queue_purge(settings.DISCOVERY_QUEUE)


def _batched(iterable, size: int):
    batch = []
    for item in iterable:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests are marked by their folder, so `make test-fast` can leave them out."""
    browser_folder = Path(__file__).resolve().parent / "browser"
    for item in items:
        if browser_folder in Path(item.path).parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object):
    """A test function that expands into generated tests of its own (schemathesis's
    @schema.parametrize: one per API operation, built when collected) is not expanded when the
    -m expression leaves it out by the marks it and its module carry, as `make test-fast` does
    the sweeps: building them was 2.4 s of each test process's 9 s of collection, for tests it
    then deselected. Marks added later (the browser folder's) never prune anything here."""
    outcome = yield
    markexpr = collector.config.option.markexpr
    if not markexpr or not isinstance(outcome.get_result(), pytest.Collector):
        return
    names = {mark.name for mark in getattr(obj, "pytestmark", [])}
    names |= {mark.name for mark in collector.iter_markers()}
    if not Expression.compile(markexpr).evaluate(lambda mark_name, **_kwargs: mark_name in names):
        outcome.force_result([])
