"""Test settings: the real PostgreSQL and Redis, with a Redis database of their own."""

from __future__ import annotations

from urllib.parse import urlsplit

from .base import *  # noqa: F403
from .base import (
    CACHE_OPTIONS,
    CELERY_DEFAULT_QUEUE_FROM_ENVIRONMENT,
    CELERY_VISIBILITY_TIMEOUT_FROM_ENVIRONMENT,
    TEST_DATABASE_NAME,
    TEST_REDIS_URL,
    env,
)

# pytest-xdist runs the suite in one process per core ("gw0", "gw1", ...; empty without it).
# pytest-django gives each its own database (the test database's name with the worker id); its
# cache keys and Celery queues take the same suffix, so two processes never share state. A Celery
# worker a test starts inherits the variable and so uses the same keys and database.
TEST_WORKER = env.str("PYTEST_XDIST_WORKER", default="")
TEST_WORKER_SUFFIX = f"-{TEST_WORKER}" if TEST_WORKER else ""

SECRET_KEY = "test-only-not-secret"  # noqa: S105
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Database 15 of the configured Redis, so tests never touch the development data.
REDIS_URL = TEST_REDIS_URL or urlsplit(REDIS_URL)._replace(path="/15").geturl()  # noqa: F405
CACHES = {
    "default": {
        "BACKEND": "bzpeer.cache.ResilientRedisCache",
        "LOCATION": REDIS_URL,
        # Per test database, so two test runs on one machine never see each other's keys.
        "KEY_PREFIX": "bzpeer-" + TEST_DATABASE_NAME + TEST_WORKER_SUFFIX,
        # A namespace per test (tests/support/cache_keys.py): nothing is flushed between tests.
        "KEY_FUNCTION": "tests.support.cache_keys.make_key",
        "OPTIONS": CACHE_OPTIONS,
    }
}
CELERY_BROKER_URL = REDIS_URL
# The test database's name is in the queue too, so two checkouts' runs on one machine (each with
# its own TEST_DATABASE_NAME) never take each other's tasks.
CELERY_TASK_DEFAULT_QUEUE = (
    CELERY_DEFAULT_QUEUE_FROM_ENVIRONMENT or f"bzpeer-{TEST_DATABASE_NAME}{TEST_WORKER_SUFFIX}"
)
GRAPH_QUEUE = env.str("CELERY_GRAPH_QUEUE", default=f"{CELERY_TASK_DEFAULT_QUEUE}-graph")
# A test's worker consumes the one queue the test names (tests/ingest'
# test_import_on_workers.Workers), so imports and mail stay on the default queue here; the graph
# keeps its own queue, which its worker test starts a worker on. The production routes are
# tested on their own (tests/bzpeer/test_celery_queues.py).
CELERY_TASK_ROUTES = {"graph.tasks.*": {"queue": GRAPH_QUEUE}}
# Discovery's tasks (the embedding sweep every import's follow-up queues) go to a queue of their
# own, as in production, which only a test that names it consumes: a worker test of imports or
# mail does not load the embedding model to embed its corpus on the side.
DISCOVERY_QUEUE = env.str(
    "CELERY_DISCOVERY_QUEUE", default=f"{CELERY_TASK_DEFAULT_QUEUE}-discovery"
)
CELERY_TASK_ROUTES["discovery.tasks.*"] = {"queue": DISCOVERY_QUEUE}
# A worker killed by a test gets its unacknowledged chunk back within seconds, not an hour.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 5
    if CELERY_VISIBILITY_TIMEOUT_FROM_ENVIRONMENT is None
    else CELERY_VISIBILITY_TIMEOUT_FROM_ENVIRONMENT
}
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}  # noqa: F405
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# Several checkouts or sessions on one machine can each keep their own test database.
DATABASES["default"]["TEST"] = {"NAME": TEST_DATABASE_NAME}  # noqa: F405
# PostgreSQL's backend with a faster flush after transactional tests (tests/support/postgresql).
DATABASES["default"]["ENGINE"] = "tests.support.postgresql"  # noqa: F405
# Static files come from the finders in tests; there is no collectstatic output to serve.
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# Jinja2 pages report their context to the test client, as Django templates do.
TEMPLATES = [
    {**engine, "BACKEND": "tests.support.jinja2_backend.Jinja2"}
    if str(engine["BACKEND"]).endswith("Jinja2")
    else engine
    for engine in TEMPLATES  # noqa: F405
]
