"""Development settings: the defaults of base.py plus debug conveniences."""

from __future__ import annotations

from .base import *  # noqa: F403
from .base import DEBUG_FROM_ENVIRONMENT, SECRET_KEY

DEBUG = True if DEBUG_FROM_ENVIRONMENT is None else DEBUG_FROM_ENVIRONMENT
SECRET_KEY = SECRET_KEY or "local-development-only-not-secret"  # noqa: S105
