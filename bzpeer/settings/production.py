"""Production settings: base.py with HTTPS enforced; everything secret or host-specific comes
from the environment (read in base.py), and the server refuses to start without it."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import (
    ALLOWED_HOSTS_FROM_ENVIRONMENT,
    PRODUCTION_HSTS_SECONDS,
    PRODUCTION_SSL_REDIRECT,
    SECRET_KEY,
)

if not SECRET_KEY:
    raise ImproperlyConfigured("Set the SECRET_KEY environment variable.")
if not ALLOWED_HOSTS_FROM_ENVIRONMENT:
    raise ImproperlyConfigured("Set the ALLOWED_HOSTS environment variable.")

DEBUG = False
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = PRODUCTION_SSL_REDIRECT
SECURE_HSTS_SECONDS = PRODUCTION_HSTS_SECONDS
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
