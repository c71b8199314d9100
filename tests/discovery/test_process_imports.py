"""A web process or a Celery worker loads no machine-learning library until it needs one: the
embedding model (torch, sentence-transformers) on its first search by meaning or embedding task,
and the AI Score's training stack (LightGBM, scikit-learn) on its weekly training only, since
the pages read stored scores. Each would add seconds to every process start and tens to
hundreds of MB to every web and worker process."""

from __future__ import annotations

import os
import subprocess
import sys

# Every view imported (the URLconf resolved) and the WSGI application built, as gunicorn does.
WEB_PROCESS = """
import sys
import django
django.setup()
from django.urls import get_resolver
get_resolver().url_patterns
import bzpeer.wsgi
heavy = ("torch", "sentence_transformers", "transformers", "lightgbm", "sklearn", "scipy")
print(",".join(name for name in heavy if name in sys.modules))
"""
# What a worker imports when it starts: every app's tasks module (Celery's autodiscovery).
WORKER_PROCESS = WEB_PROCESS.replace(
    "import bzpeer.wsgi",
    "from bzpeer.celery import app\napp.loader.import_default_modules()",
)


def _modules_loaded(script: str) -> str:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "bzpeer.settings.test"}
    result = subprocess.run(
        [sys.executable, "-c", script],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return result.stdout.strip()


def test_a_web_process_starts_without_torch_lightgbm_or_scikit_learn():
    assert _modules_loaded(WEB_PROCESS) == ""


def test_a_worker_starts_without_torch_lightgbm_or_scikit_learn():
    assert _modules_loaded(WORKER_PROCESS) == ""
