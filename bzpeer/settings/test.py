"""Test settings: the real PostgreSQL and Redis, with a Redis database of their own."""

from __future__ import annotations

from urllib.parse import urlsplit

from .base import *  # noqa: F403
from .base import (
    CELERY_DEFAULT_QUEUE_FROM_ENVIRONMENT,
    CELERY_VISIBILITY_TIMEOUT_FROM_ENVIRONMENT,
    GRAPH_QUEUE,
    TEST_DATABASE_NAME,
    TEST_REDIS_URL,
)

SECRET_KEY = "test-only-not-secret"  # noqa: S105
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Database 15 of the configured Redis, so tests never touch the development data.
REDIS_URL = TEST_REDIS_URL or urlsplit(REDIS_URL)._replace(path="/15").geturl()  # noqa: F405
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
        # Per test database, so two test runs on one machine never see each other's keys.
        "KEY_PREFIX": "bzpeer-" + TEST_DATABASE_NAME,
    }
}
CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_DEFAULT_QUEUE = CELERY_DEFAULT_QUEUE_FROM_ENVIRONMENT or "bzpeer-test"
# A test's worker consumes the one queue the test names (tests/publications'
# test_import_on_workers.Workers), so imports and mail stay on the default queue here; the graph
# keeps its own queue, which its worker test starts a worker on. The production routes are
# tested on their own (tests/bzpeer/test_celery_queues.py).
CELERY_TASK_ROUTES = {"graph.tasks.*": {"queue": GRAPH_QUEUE}}
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
