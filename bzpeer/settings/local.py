"""Development settings: the defaults of base.py plus debug conveniences."""

from __future__ import annotations

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env.str("SECRET_KEY", default="local-development-only-not-secret")
