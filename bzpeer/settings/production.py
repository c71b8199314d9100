"""Production settings: base.py with HTTPS enforced; everything secret or host-specific comes
from the environment (read in base.py), and the server refuses to start without it."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import (
    ALLOWED_HOSTS_FROM_ENVIRONMENT,
    PRODUCTION_HSTS_SECONDS,
    PRODUCTION_SSL_REDIRECT,
    REST_FRAMEWORK,
    SECRET_KEY,
    TRUSTED_PROXY_COUNT_FROM_ENVIRONMENT,
)

if not SECRET_KEY:
    raise ImproperlyConfigured("Set the SECRET_KEY environment variable.")
if not ALLOWED_HOSTS_FROM_ENVIRONMENT:
    raise ImproperlyConfigured("Set the ALLOWED_HOSTS environment variable.")

DEBUG = False
# Production runs behind one TLS proxy of ours (it sets X-Forwarded-Proto, trusted above): the
# client's address is the one that proxy appends to X-Forwarded-For, unless the environment says
# how many proxies there are. The application's port must be reachable only through them: a
# client reaching gunicorn directly could forge the header (docs/operating.md, "Behind the
# proxy").
TRUSTED_PROXY_COUNT = (
    1 if TRUSTED_PROXY_COUNT_FROM_ENVIRONMENT is None else TRUSTED_PROXY_COUNT_FROM_ENVIRONMENT
)
REST_FRAMEWORK = {**REST_FRAMEWORK, "NUM_PROXIES": TRUSTED_PROXY_COUNT}
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = PRODUCTION_SSL_REDIRECT
SECURE_HSTS_SECONDS = PRODUCTION_HSTS_SECONDS
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
