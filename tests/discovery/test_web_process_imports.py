"""A web process loads no machine-learning library until it needs one: the embedding model
(torch, sentence-transformers) on its first search by meaning, and the AI Score's training
stack (LightGBM, scikit-learn) never, since the pages only read stored scores. Each would add
seconds to every process start and tens to hundreds of MB to every web worker."""

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


def test_a_web_process_starts_without_torch_lightgbm_or_scikit_learn():
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "bzpeer.settings.test"}
    result = subprocess.run(
        [sys.executable, "-c", WEB_PROCESS],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert result.stdout.strip() == "", f"a web process imported {result.stdout.strip()}"
