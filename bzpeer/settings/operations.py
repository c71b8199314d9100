"""The operator's settings, imported by base.py: the import pipeline's batch, chunk and
follow-up sizes, Prometheus metrics and HTTP caching of the public pages."""

from __future__ import annotations

from datetime import timedelta

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
