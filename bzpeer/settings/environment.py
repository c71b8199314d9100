"""Where the settings come from: the checkout's folder, and the environment read through
django-environ's typed helpers (a bad value fails at start-up). base.py and the modules it
imports read every variable through `env`; nothing else reads the environment."""

from __future__ import annotations

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
