"""The embedding model's fast path: the same all-MiniLM-L6-v2 weights, exported to ONNX and
quantised to int8 (ONNX Runtime's dynamic quantisation, per channel), run by ONNX Runtime.

The file is made from the installed package's weights on this machine (torch's exporter, then
`onnxruntime.quantization.quantize_dynamic`) and kept under DISCOVERY_MODEL_DIR; nothing is
downloaded. `make install` makes it (`python -m discovery.embedder`, about 15 s of CPU), so
neither a test process nor a first request pays for the export; a process that finds it missing
still makes it. Its name carries the weights' and the tools'
versions, so an upgrade makes a new file instead of reading a stale one. Two processes that
export at once each write a file of their own and rename it into place: the last one wins,
and both are the same model.

Mean pooling over the tokens and unit length, as sentence-transformers does for this model, so
a fast vector is comparable with a full-precision one (bench/embedding_bench.py measures how
far their nearest neighbours agree).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from .vectors import FloatArray

_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
# What the file is made by, in its name: a changed recipe makes a new file instead of reading
# a stale one. "eager": the encoder exported with transformers' plain attention; its default
# (torch's scaled_dot_product_attention) traces into a mask built of Where/IsNaN/And nodes that
# took about a tenth of the kernel time, where the plain one adds the mask once. Same weights and
# the same int8 recipe: a text's vector from this file and from the earlier one have a mean
# cosine of 0.999 (1,000 texts), closer than either is to full precision (0.994), so the stored
# model label is unchanged and existing vectors are not re-embedded for it.
RECIPE = "eager-int8pc"


def _weights_digest(model_dir: Path) -> str:
    """A short digest of the weights file's size and modification time: cheap, and changed by
    any reinstall of another version of the package."""
    weights = model_dir / "model.safetensors"
    stat = weights.stat()
    return hashlib.sha1(f"{stat.st_size}:{int(stat.st_mtime)}".encode()).hexdigest()[:10]  # noqa: S324


def quantised_model_path(model_dir: Path, cache_dir: Path) -> Path:
    """Where the int8 file of these weights, made by these versions of the tools, lives. The
    versions are read from the installed distributions: importing torch only to name a file
    would load it (about 250 MB) into a web process that runs the ONNX model alone."""
    versions = f"torch{version('torch').split('+')[0]}-ort{version('onnxruntime')}"
    digest = _weights_digest(model_dir)
    return cache_dir / f"all-MiniLM-L6-v2-{RECIPE}-{digest}-{versions}.onnx"


def quantised_model_build(model_dir: Path, target: Path) -> Path:
    """Export the packaged weights to ONNX and quantise them to int8 at `target` (atomically)."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    class _LastHiddenState(torch.nn.Module):
        """The encoder with named inputs and one output, as the exporter traces it."""

        def __init__(self, encoder: Any) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    target.parent.mkdir(parents=True, exist_ok=True)
    encoder = AutoModel.from_pretrained(
        str(model_dir), local_files_only=True, attn_implementation="eager"
    ).eval()
    example = torch.ones((2, 8), dtype=torch.long)
    with tempfile.TemporaryDirectory(dir=target.parent) as folder:
        exported = Path(folder) / "model.onnx"
        quantised = Path(folder) / "model-int8.onnx"
        with torch.inference_mode():
            torch.onnx.export(
                _LastHiddenState(encoder),
                (example, example, torch.zeros_like(example)),
                str(exported),
                input_names=list(_INPUTS),
                output_names=["last_hidden_state"],
                dynamic_axes={
                    name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "last_hidden_state")
                },
                opset_version=17,
                dynamo=False,
            )
        quantize_dynamic(
            str(exported), str(quantised), weight_type=QuantType.QInt8, per_channel=True
        )
        os.replace(quantised, target)
    return target


class QuantisedEncoder:
    """The int8 model in an ONNX Runtime session, with the model's own tokenizer."""

    def __init__(self, path: Path, model_dir: Path, *, window: int, threads: int) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=window)
        self.tokenizer.enable_padding()
        self.window = window

    def encode(self, texts: list[str]) -> FloatArray:
        """Unit-length mean-pooled vectors, one row per text (one batch, padded to its longest)."""
        encodings = self.tokenizer.encode_batch(texts)
        feeds = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        (hidden,) = self.session.run(None, feeds)
        mask = feeds["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
