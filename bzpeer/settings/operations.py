"""The operator's settings, imported by base.py: the import pipeline's batch, chunk and
follow-up sizes, Prometheus metrics, HTTP caching of the public pages, and how the site rides
out a dependency's failure (docs/operating.md, "When a dependency fails")."""

from __future__ import annotations

from datetime import timedelta

from celery.schedules import crontab

from .environment import env

OPENALEX_API_URL = env.str("OPENALEX_API_URL", default="https://api.openalex.org")
OPENALEX_MAILTO = env.str("OPENALEX_MAILTO", default="")
# Anonymous profile pages are cached this long (0 turns the cache off); see pages.views.
PROFILE_PAGE_CACHE_SECONDS = env.int("PROFILE_PAGE_CACHE_SECONDS", default=600)
IMPORT_BATCH_SIZE = env.int("IMPORT_BATCH_SIZE", default=2000)
IMPORT_CHUNK_LINES = env.int("IMPORT_CHUNK_LINES", default=20000)
# During a run on the workers, the metrics and trust of the researchers it touched catch up when
# it finishes, or after this many seconds if it runs longer (ingest.services.follow_up).
IMPORT_FOLLOW_UP_MAX_LAG = timedelta(seconds=env.int("IMPORT_FOLLOW_UP_MAX_LAG", default=30 * 60))
# Researchers followed up in one transaction (at least; a drain makes at most about ten). A drain
# on a worker with two slices or more hands them to the workers, one task each.
IMPORT_FOLLOW_UP_SLICE = env.int("IMPORT_FOLLOW_UP_SLICE", default=5000)

# Prometheus metrics at /metrics (bzpeer.metrics): off (404) unless a bearer token or a list of
# scraper addresses (as bzpeer.http.client_address sees them) is set. Under gunicorn with
# several workers, set PROMETHEUS_MULTIPROC_DIR (an empty directory, emptied at each start) so
# /metrics adds up every worker's figures, not only the one answering.
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
METRICS_ALLOWED_IPS: list[str] = env.list("METRICS_ALLOWED_IPS", default=[])
METRICS_MULTIPROCESS_DIR = env.str("PROMETHEUS_MULTIPROC_DIR", default="")
# Collectors asked at each scrape, by the apps that own the data (the shared core imports none).
METRICS_COLLECTORS = [
    "ingest.metrics.ImportThroughputCollector",
    "notifications.metrics.EmailThroughputCollector",
]
# Anonymous public pages (pages.views): a shared cache or a CDN keeps them this long, then
# serves the stale copy this much longer while it revalidates (a 304 when nothing changed).
HTTP_CACHE_MAX_AGE = env.int("HTTP_CACHE_MAX_AGE", default=60)
HTTP_CACHE_STALE_WHILE_REVALIDATE = env.int("HTTP_CACHE_STALE_WHILE_REVALIDATE", default=300)
# Every page's ETag also changes at least this often (bzpeer.http_caching.validator_period):
# as long as the profile page cache keeps a page, and for the same reason.
HTTP_CACHE_VALIDATOR_SECONDS = env.int("HTTP_CACHE_VALIDATOR_SECONDS", default=600)

# A cache is an accelerator, not a dependency (issue 29): with Redis unreachable a read is a
# miss and a write is dropped, each logged (django-redis's IGNORE_EXCEPTIONS), and the rate
# limits' keys are counted in PostgreSQL meanwhile (bzpeer.cache). Short socket timeouts, so a
# Redis that hangs costs a request a second or two, not a worker.
CACHE_OPTIONS = {
    "IGNORE_EXCEPTIONS": True,
    "SOCKET_CONNECT_TIMEOUT": env.float("REDIS_CONNECT_TIMEOUT", default=1.0),
    "SOCKET_TIMEOUT": env.float("REDIS_TIMEOUT", default=2.0),
}
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
DJANGO_REDIS_LOGGER = "bzpeer.cache.unreachable"  # sampled: bzpeer.cache.CacheErrorsSampled
# A worker that lost the broker reconnects for ever (None: no limit), so it comes back by itself
# after a Redis restart; a web process sending after commit gives up within a few seconds and
# logs it (bzpeer.queueing: work that must not be lost is owed in the database and swept).
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 1,
}
# Work whose task message was lost (the broker down or emptied) is owed in the database and sent
# again by these sweeps (docs/operating.md, "When a dependency fails", lists every task with
# how it is owed and swept; base.py adds them to the beat schedule).
OWED_WORK_BEAT_SCHEDULE = {
    "notifications-emails-owed": {
        "task": "notifications.tasks.notification_emails_owed_send",
        "schedule": 5 * 60,
    },
    "notifications-daily-digests-owed": {
        "task": "notifications.tasks.notification_digests_resend_pending",
        "schedule": crontab(minute=30),
    },
    "claims-checks-owed": {"task": "claims.tasks.claim_checks_owed_send", "schedule": 5 * 60},
    "claims-orcid-imports-owed": {
        "task": "claims.tasks.orcid_imports_owed_send",
        "schedule": 5 * 60,
    },
    "account-exports-owed": {
        "task": "collaboration.tasks.account_exports_owed_build",
        "schedule": 5 * 60,
    },
}
