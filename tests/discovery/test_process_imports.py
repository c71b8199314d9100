"""A web process or a Celery worker loads no machine-learning library until it needs one: the
embedding model (torch, sentence-transformers) on its first search by meaning or embedding task,
and the AI Score's training stack (LightGBM, scikit-learn) on its weekly training only, since
the pages read stored scores. Each would add seconds to every process start and tens to
hundreds of MB to every web and worker process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def test_a_query_embedded_on_the_fast_path_loads_onnx_runtime_and_not_torch(settings):
    """A web process answering a by-meaning query runs the int8 ONNX model (production's
    FAST_PATH): about 85 MB more than Django alone, where torch's model is about 465 MB."""
    from discovery import embedder
    from discovery.onnx_model import quantised_model_build, quantised_model_path

    assert embedder.FAST_PATH
    # Made beforehand, as the first embedding task makes it; making it needs torch.
    path = quantised_model_path(embedder.model_dir(), Path(str(settings.DISCOVERY_MODEL_DIR)))
    if not path.exists():
        quantised_model_build(embedder.model_dir(), path)
    query = WEB_PROCESS.replace(
        "import bzpeer.wsgi",
        "import bzpeer.wsgi\nfrom discovery import embedder\n"
        "assert embedder.embed_texts(['lung infections from a market']).shape == (1, 384)\n"
        "assert 'onnxruntime' in sys.modules",
    )
    assert _modules_loaded(query) == ""
