"""Settings shared by every environment.

Every value that comes from the environment is read here or in operations.py (which this
module imports), through django-environ's typed helpers (`env`, environment.py), so a bad value
fails loudly at start-up instead of somewhere later.
"""

from __future__ import annotations

from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from .environment import BASE_DIR, env
from .operations import CACHE_OPTIONS

# Where the default depends on the environment, the value is read here as None when unset and
# settled by local.py, test.py or production.py (which refuses to start without SECRET_KEY and
# ALLOWED_HOSTS). Nothing outside this file reads the environment.
DEBUG_FROM_ENVIRONMENT: bool | None = env.bool("DEBUG", default=None)
DEBUG = bool(DEBUG_FROM_ENVIRONMENT)
SECRET_KEY = env.str("SECRET_KEY", default="")
ALLOWED_HOSTS_FROM_ENVIRONMENT: list[str] | None = env.list("ALLOWED_HOSTS", default=None)
ALLOWED_HOSTS = ALLOWED_HOSTS_FROM_ENVIRONMENT or ["127.0.0.1", "localhost"]
# Production's HTTPS (settings/production.py applies them).
PRODUCTION_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
PRODUCTION_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
# The test suite's own database and Redis database (settings/test.py), so several checkouts or
# sessions on one machine never share them.
TEST_DATABASE_NAME = env.str("TEST_DATABASE_NAME", default="test_bzpeer")
TEST_REDIS_URL: str | None = env.str("TEST_REDIS_URL", default=None)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# How many reverse proxies of our own stand in front of the site, each appending to
# X-Forwarded-For. Every limit keyed by address (DRF's throttle, allauth's login and sign-up
# limits) takes the client's address from bzpeer.http.client_address, which believes that
# header only this far; 0, with nothing in front, means REMOTE_ADDR and the header ignored.
TRUSTED_PROXY_COUNT_FROM_ENVIRONMENT: int | None = env.int("TRUSTED_PROXY_COUNT", default=None)
TRUSTED_PROXY_COUNT = TRUSTED_PROXY_COUNT_FROM_ENVIRONMENT or 0
if TRUSTED_PROXY_COUNT < 0:
    raise ImproperlyConfigured("TRUSTED_PROXY_COUNT must be 0 or more.")

DATABASE_URL_DEFAULT = "postgres://postgres@127.0.0.1:5432/bzpeer"
REDIS_URL_DEFAULT = "redis://127.0.0.1:6379/0"
DATABASES = {"default": env.db_url("DATABASE_URL", default=DATABASE_URL_DEFAULT)}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# Parameters bound by the server, and a statement run DB_PREPARE_THRESHOLD times on a connection
# prepared there: the pages run the same few statements over and over, and PostgreSQL's
# planning of them cost more than running them (1.7 of the profile page's 3.9 ms of SQL).
# DB_PREPARE_THRESHOLD=0 turns preparing off, for a pooler in transaction mode, which cannot keep
# prepared statements.
DATABASES["default"]["OPTIONS"] = {
    **DATABASES["default"].get("OPTIONS", {}),
    "server_side_binding": True,
    "prepare_threshold": env.int("DB_PREPARE_THRESHOLD", default=5) or None,
}
# Behind a pooler in transaction mode (DB_PREPARE_THRESHOLD=0 says there is one), a server-side
# cursor (QuerySet.iterator()) would outlive its transaction on a server connection that the
# pooler hands to someone else; Django then reads the rows client-side.
DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = (
    DATABASES["default"]["OPTIONS"]["prepare_threshold"] is None
)
# Streaming replicas (comma-separated URLs): the reads of GET requests go to one of them (see
# bzpeer/db_router.py and bzpeer/replica_middleware.py). Unset, there is no router at all.
DATABASE_REPLICA_URLS: list[str] = env.list("DATABASE_REPLICA_URLS", default=[])
DATABASE_REPLICAS: list[str] = []
for _number, _url in enumerate(DATABASE_REPLICA_URLS, start=1):
    _alias = f"replica_{_number}"
    DATABASES[_alias] = {
        **env.db_url_config(_url),
        "CONN_MAX_AGE": DATABASES["default"]["CONN_MAX_AGE"],
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": {**DATABASES["default"]["OPTIONS"]},
        "DISABLE_SERVER_SIDE_CURSORS": DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"],
        # The test runner creates no database for a replica: it stands for the primary's.
        "TEST": {"MIRROR": "default"},
    }
    DATABASE_REPLICAS.append(_alias)
DATABASE_ROUTERS = ["bzpeer.db_router.ReplicaRouter"] if DATABASE_REPLICAS else []
# Read-your-writes: a browser reads the primary this long after it last wrote (longer than the
# replicas' usual lag, which pg_stat_replication's replay_lag shows).
DATABASE_REPLICA_STICKY_SECONDS = env.int("DATABASE_REPLICA_STICKY_SECONDS", default=10)
DATABASE_REPLICA_PRIMARY_PATHS = ["/admin/", "/accounts/"]
REDIS_URL = env.str("REDIS_URL", default=REDIS_URL_DEFAULT)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "users.User"
SITE_ID = 1
SITE_DOMAIN = env.str("SITE_DOMAIN", default="127.0.0.1:8000")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.sites",
    "django.contrib.postgres",
    "django.contrib.sitemaps",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.orcid",
    # Two-factor authentication (TOTP, recovery codes) and the list of one's signed-in sessions.
    "allauth.mfa",
    "allauth.usersessions",
    "bzpeer.users",
    "researchers",
    "publications",
    "notifications",
    "graph",
    "claims",
    "collaboration",
    "feed",
    "discovery",
    "search",
    "pages",
    "ingest",
]

MIDDLEWARE = [
    # First, so every later log line carries the request id and the latency is the whole.
    "bzpeer.request_context.RequestIdMiddleware",
    "bzpeer.metrics.MetricsMiddleware",
    # Outside the middleware that set cookies: such a response is never public.
    "bzpeer.http_caching.PrivateWhenSettingCookiesMiddleware",
    "bzpeer.http_caching.AccountPagesNoStoreMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "bzpeer.security_headers.PermissionsPolicyMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "bzpeer.middleware.RejectUnreadableInputMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # Staff reach the admin only with two-factor authentication turned on.
    "bzpeer.middleware.StaffTwoFactorMiddleware",
    # A social sign-in provider without keys (ORCID on the demo) is a 404 page, not a 500.
    "bzpeer.middleware.MissingSocialAppMiddleware",
    # A lock conflict the services' retries did not get past is a 503 with Retry-After.
    "bzpeer.middleware.LockConflictMiddleware",
    # The database unreachable (a restart): a 503 with Retry-After (also bzpeer.urls' handler500).
    "bzpeer.db_outage.DatabaseUnavailableMiddleware",
]
if DATABASE_REPLICAS:
    # Outside the session and CSRF middleware: its read-your-writes cookie is its own.
    MIDDLEWARE.insert(
        MIDDLEWARE.index("django.contrib.sessions.middleware.SessionMiddleware"),
        "bzpeer.replica_middleware.ReplicaReadsMiddleware",
    )

ROOT_URLCONF = "bzpeer.urls"
WSGI_APPLICATION = "bzpeer.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
    {
        # The public read pages (see pages/jinja2.py for why they use Jinja2).
        "NAME": "jinja2",
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {
            "environment": "pages.jinja2.environment",
            "context_processors": [
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Accounts, sign-in, two-factor authentication and ORCID (allauth): accounts.py.
from .accounts import *  # noqa: E402, F403
from .accounts import ORCID_BASE_DOMAIN  # noqa: E402 - the CSP's form-action below

# Claims, reports and split requests: limits per user over a sliding window (Redis), see
# claims/ratelimit.py. Vouches have no hourly limit: the monthly cap below is lower.
CLAIMS_RATE_LIMITS = {
    "claim_submit": env.str("RATE_LIMIT_CLAIM", default="5/h"),
    "report_submit": env.str("RATE_LIMIT_REPORT", default="5/h"),
    "split_request": env.str("RATE_LIMIT_SPLIT_REQUEST", default="30/h"),
    # The claimant's "Refresh from ORCID": each is a few ORCID API requests and an import.
    "orcid_refresh": env.str("RATE_LIMIT_ORCID_REFRESH", default="3/h"),
    # The claimant's BibTeX upload: each preview parses up to 2 MB, each confirm writes an import
    # run. Counted per user and per client address (ingest.services.bibtex_upload).
    "bibtex_upload": env.str("RATE_LIMIT_BIBTEX_UPLOAD", default="20/h"),
    "bibtex_confirm": env.str("RATE_LIMIT_BIBTEX_CONFIRM", default="10/h"),
}
# Vouching: at most this many vouches per user in any 30 days; this many vouches corroborate.
CLAIMS_VOUCHES_PER_MONTH = env.int("CLAIMS_VOUCHES_PER_MONTH", default=5)
CLAIMS_VOUCHES_NEEDED = env.int("CLAIMS_VOUCHES_NEEDED", default=2)
# Collaboration invitations a verified researcher may send in any 24 hours, by verification
# level; counted from the invitations table (collaboration.services.quotas), not a cache.
INVITATIONS_PER_DAY_L3 = env.int("INVITATIONS_PER_DAY_L3", default=10)
INVITATIONS_PER_DAY_L4 = env.int("INVITATIONS_PER_DAY_L4", default=25)
# Both email digests (the daily digest of notifications and the feed's digests of new works) go
# through notifications.services.deliveries: users per chunk (one task each), and how long a
# claimed chunk stays with the run that claimed it before the next run may take it over (the
# claimer died part way). Longer than a chunk's task may run (its time limit, 5 minutes). The
# variables' former names, FEED_DIGEST_CHUNK_SIZE and FEED_DIGEST_LEASE_SECONDS, still work.
DIGEST_CHUNK_SIZE = env.int(
    "DIGEST_CHUNK_SIZE", default=env.int("FEED_DIGEST_CHUNK_SIZE", default=500)
)
DIGEST_LEASE_SECONDS = env.int(
    "DIGEST_LEASE_SECONDS", default=env.int("FEED_DIGEST_LEASE_SECONDS", default=15 * 60)
)
if DIGEST_CHUNK_SIZE < 1 or DIGEST_LEASE_SECONDS < 1:
    raise ImproperlyConfigured("DIGEST_CHUNK_SIZE and DIGEST_LEASE_SECONDS must be >= 1.")
# Decision notifications go to the claimant in the app and by email (a Celery task).
NOTIFICATIONS_EMAIL_ENABLED = env.bool("NOTIFICATIONS_EMAIL_ENABLED", default=True)
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000")

EMAIL_BACKEND = env.str("EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="bzpeer <noreply@bzpeer.invalid>")

# Redis unreachable: a miss, and rate limits counted in PostgreSQL (bzpeer.cache, operations.py).
CACHES = {
    "default": {
        "BACKEND": "bzpeer.cache.ResilientRedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env.str("CACHE_KEY_PREFIX", default="bzpeer"),
        "OPTIONS": CACHE_OPTIONS,
    }
}
# Rows in PostgreSQL with the cache in front: no Redis outage or empty restart signs anyone out.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

REST_FRAMEWORK = {
    # drf-spectacular's, with the error answers and blank enums it leaves out (bzpeer.api_schema).
    "DEFAULT_SCHEMA_CLASS": "bzpeer.api_schema.ApiAutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 25,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    # Sessions only: HTTP Basic would let anyone guess passwords with no lockout, and sign in
    # accounts whose email is not verified; a session comes from allauth's login, which
    # refuses both (and DRF checks CSRF on a session's unsafe requests).
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # Keyed by bzpeer.http.client_address; NUM_PROXIES keeps any stock DRF throttle from
    # believing a forged X-Forwarded-For too.
    "DEFAULT_THROTTLE_CLASSES": ["bzpeer.http.AnonRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"anon": env.str("API_ANON_RATE", default="120/min")},
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
    # Service refusals (bzpeer.errors.ServiceError) answer {"detail": ...} with their status.
    "EXCEPTION_HANDLER": "bzpeer.errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "bzpeer API",
    "DESCRIPTION": "Read-only access to researchers and works imported into bzpeer.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and Redoc come from the sidecar package so the docs work offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several models have a "status" with their own choices; each set gets its own name.
    "ENUM_NAME_OVERRIDES": {
        "InvitationStatusEnum": "collaboration.models.InvitationStatus",
        "InvitationKindEnum": "collaboration.models.InvitationKind",
    },
}

# Content-Security-Policy (django-csp): scripts, styles, images, fonts and requests come from
# this site only, and nothing inline runs or applies, so markup slipped into a page cannot
# execute. Templates keep their scripts and styles in static files (htmx's indicator rule and
# Cytoscape's container rule included, see base.html and graph.css). The Swagger UI page is
# left out: drf-spectacular writes it with an inline <style>, and Swagger UI adds inline
# styles as it draws.
CONTENT_SECURITY_POLICY = {
    "EXCLUDE_URL_PREFIXES": ["/api/docs/"],
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        # Forms post to this site only (default-src does not cover form-action); signing in
        # with ORCID posts here and is redirected to ORCID's authorisation page, which a
        # browser checks against form-action too.
        "form-action": [SELF, f"https://{ORCID_BASE_DOMAIN}"],
    },
}

# Celery: Redis is the broker; the queues, routes and beat's schedule are in queues.py.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL)
from .queues import *  # noqa: E402, F403

# The AI Score (discovery.ai_score; docs/ai-score.md): below this many works with three complete
# years of citations there is no model, hence no score, and the pages say why.
AI_SCORE_MIN_TRAINING_WORKS = env.int("AI_SCORE_MIN_TRAINING_WORKS", default=5000)

# Discovery by meaning (docs/discovery.md): the nearest-neighbour index of the works'
# embeddings is a file here, written by a task and memory-mapped read-only by the web processes.
DISCOVERY_INDEX_DIR = env.path("DISCOVERY_INDEX_DIR", default=BASE_DIR / "var" / "discovery")
# The embedding model's int8 ONNX file (discovery/onnx_model.py), made from the installed weights
# by `make install` (or the first time a process embeds on the fast path and finds it missing).
DISCOVERY_MODEL_DIR = env.path("DISCOVERY_MODEL_DIR", default=BASE_DIR / "var" / "models")

# Every line names its request or Celery task (bzpeer.request_context); LOG_FORMAT=json writes
# one JSON object per line for a log collector.
LOG_FORMAT = env.str("LOG_FORMAT", default="plain")
if LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured("LOG_FORMAT must be plain or json.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "bzpeer.request_context.ContextFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(ids)s%(message)s"},
        "json": {"()": "bzpeer.request_context.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["context"],
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# Imports' tuning, metrics and HTTP caching (the operator's settings).
from .operations import *  # noqa: E402, F403
