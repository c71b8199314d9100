"""The embedding benchmark (issue 26, scale): `python -m bench.embedding_bench`.

Texts of real length (a title and about 450 characters of abstract, as in the demo data), built
from the shared corpus's real abstracts (OpenAlex and arXiv records in ../shared/testdata):
each text is a title and a window of its abstract, windows taken at varied offsets so the
texts are many and not copies of each other.

It measures, on this machine, with torch limited to --threads threads:
1. texts a second for the plain model (sentence-transformers' defaults: its 256-token window,
   batches of 32 in the order given), for full precision sorted by length, and for the fast
   path discovery.embedder uses (the ONNX int8 file of discovery/onnx_model.py, 256 tokens,
   batches sorted by length); `--also-onnx FILE` times another ONNX file the same way in the
   same run (an earlier recipe's, to compare on the same load);
2. for --agreement texts, the share of each text's ten nearest neighbours (cosine, itself left
   out) that the fast path's vectors find among the full-precision model's ten (the issue asks
   for at least 90%);
3. the fast path in a worker's shapes (one process, and a process per core, each of one thread
   and of a thread per core), and the time to embed 1M works and 10,000 new works at the
   best of those rates.

Figures, not a test: nothing asserts a duration. The machine may be shared: the figures say
what was measured then.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
TESTDATA = Path(os.environ.get("BZPEER_TESTDATA", REPO_ROOT.parent / "shared" / "testdata"))
TEXT_LENGTH = 450


def _say(text: str) -> None:
    print(text, flush=True)  # noqa: T201


def _django() -> None:
    sys.path.insert(0, str(REPO_ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bzpeer.settings.local")
    import django

    django.setup()


def _corpus() -> list[tuple[str, str]]:
    """(title, abstract) of every real record with an abstract: OpenAlex works and arXiv
    entries."""
    from ingest.arxiv.atom import parse_feed
    from tests.support.abstracts import real_abstracts

    pairs = [(item.title, item.abstract) for item in real_abstracts(TESTDATA)]
    for path in sorted((TESTDATA / "arxiv" / "api").glob("*.xml")):
        try:
            feed = parse_feed(path.read_bytes())
        except Exception:  # noqa: BLE001,S112 - an error answer holds no abstract
            continue
        pairs += [
            (entry.title, " ".join(entry.summary.split()))
            for entry in feed.entries
            if entry.title and entry.summary and len(entry.summary) > 200
        ]
    return list(dict.fromkeys(pairs))


def texts_of_real_length(count: int, *, seed: int = 26) -> list[str]:
    """count texts: a title, a line break and ~TEXT_LENGTH characters of its abstract, from a
    word boundary at a varied offset (lengths vary by +-30%, as real abstracts' openings do)."""
    corpus = _corpus()
    rng = random.Random(seed)
    texts = []
    for number in range(count):
        title, abstract = corpus[number % len(corpus)]
        length = int(TEXT_LENGTH * rng.uniform(0.7, 1.3)) - len(title)
        words = abstract.split()
        start = rng.randrange(max(1, len(words) // 2))
        window = " ".join(words[start:])
        if len(window) < length:
            window = abstract
        texts.append(f"{title}\n{window[: max(length, 80)].rsplit(' ', 1)[0]}")
    return texts


def _plain_model():
    from sentence_transformers import SentenceTransformer

    from discovery.embedder import model_dir

    return SentenceTransformer(str(model_dir()), device="cpu", local_files_only=True)


def _onnx_embed(path: Path, threads: int):
    """Texts to vectors through another ONNX file of the model, batched and sorted as
    discovery.embedder.embed_texts does the fast path's."""
    from discovery import embedder
    from discovery.onnx_model import QuantisedEncoder

    encoder = QuantisedEncoder(
        path, embedder.model_dir(), window=embedder.FAST_WINDOW, threads=threads
    )

    def embed(texts: list[str]) -> np.ndarray:
        cut = [text[: embedder.MAX_TEXT_CHARS] for text in texts]
        order = sorted(range(len(cut)), key=lambda index: len(cut[index]))
        vectors = np.zeros((len(cut), embedder.DIMENSIONS), dtype=np.float32)
        for start in range(0, len(order), embedder.FAST_BATCH):
            batch = order[start : start + embedder.FAST_BATCH]
            vectors[batch] = encoder.encode([cut[index] for index in batch])
        return vectors

    return embed


# The pool's processes each hold their own encoder: an ONNX Runtime session is made after the
# fork, never inherited.
_pool_embed_fn = None
POOL_CHUNK = 64  # four of the fast path's batches: the same batches as one process makes


def _pool_start(threads: int, ready) -> None:
    global _pool_embed_fn
    from discovery import embedder

    _pool_embed_fn = _onnx_embed(embedder.fast_model_path(), threads)
    _pool_embed_fn(["a warm-up text of a few words"] * 16)
    ready.wait()  # every process loaded and warm before the parent starts its clock


def _pool_embed(texts: list[str]) -> int:
    return len(_pool_embed_fn(texts))


def _pool_noop(_: int) -> None:
    return None


def processes_rate(texts: list[str], processes: int, threads: int) -> float:
    """Texts a second of the fast path in `processes` processes of `threads` threads each, as
    a Celery worker's prefork pool runs it: the texts sorted by length once and dealt out in
    chunks of POOL_CHUNK, so each batch pads as in one process."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    ready = context.Barrier(processes)
    ordered = sorted(texts, key=len)
    chunks = [ordered[start : start + POOL_CHUNK] for start in range(0, len(ordered), POOL_CHUNK)]
    with context.Pool(processes, initializer=_pool_start, initargs=(threads, ready)) as pool:
        pool.map(_pool_noop, range(processes * 4), chunksize=1)
        started = time.perf_counter()
        done = sum(pool.map(_pool_embed, chunks, chunksize=1))
        return done / (time.perf_counter() - started)


def _rate(embed, texts: list[str]) -> tuple[float, np.ndarray]:
    embed(texts[:16])  # warm: first-call allocations are not the steady rate
    started = time.perf_counter()
    vectors = embed(texts)
    return len(texts) / (time.perf_counter() - started), vectors


def _neighbours(vectors: np.ndarray, k: int) -> np.ndarray:
    scores = vectors @ vectors.T
    np.fill_diagonal(scores, -np.inf)
    return np.argsort(-scores, axis=1)[:, :k]


def agreement_at_10(reference: np.ndarray, candidate: np.ndarray) -> float:
    left, right = _neighbours(reference, 10), _neighbours(candidate, 10)
    shared = [len(set(a) & set(b)) for a, b in zip(left.tolist(), right.tolist(), strict=True)]
    return float(np.mean(shared)) / 10


def index_figures(vectors: np.ndarray, works: int, *, queries: int = 500) -> dict[str, float]:
    """The by-meaning index at `works` vectors (the real ones, each repeated with noise so
    their neighbourhoods stay as crowded as real ones): both kinds discovery.services.index
    writes, their file sizes (what the web processes map and share) and the p50/p99 of a
    search of the 200 nearest (what the page asks for)."""
    import tempfile

    from usearch.index import Index

    rng = np.random.default_rng(26)
    base = vectors[rng.integers(0, len(vectors), works)]
    matrix = base + rng.normal(0, 0.05, base.shape).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    probes = matrix[rng.integers(0, works, queries)]
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as directory:
        np.save(Path(directory) / "vectors.npy", matrix)
        figures["exact_file_mb"] = (Path(directory) / "vectors.npy").stat().st_size / 1e6
        mapped = np.load(Path(directory) / "vectors.npy", mmap_mode="r")
        timings = []
        for probe in probes:
            started = time.perf_counter()
            scores = np.asarray(mapped @ probe, dtype=np.float32)
            np.argpartition(-scores, 199)[:200]
            timings.append(time.perf_counter() - started)
        figures["exact_p50_ms"] = float(np.percentile(timings, 50) * 1000)
        figures["exact_p99_ms"] = float(np.percentile(timings, 99) * 1000)
        started = time.perf_counter()
        index = Index(ndim=matrix.shape[1], metric="cos", dtype="i8", connectivity=16)
        index.add(np.arange(works, dtype=np.uint64), matrix, log=False)
        figures["hnsw_build_s"] = time.perf_counter() - started
        index.save(str(Path(directory) / "works.usearch"))
        figures["hnsw_file_mb"] = (Path(directory) / "works.usearch").stat().st_size / 1e6
        view = Index.restore(str(Path(directory) / "works.usearch"), view=True)
        timings, recall = [], []
        for probe in probes:
            started = time.perf_counter()
            found = view.search(probe, 200)
            timings.append(time.perf_counter() - started)
        for probe in probes[:50]:
            truth = set(np.argsort(-(matrix @ probe))[:10].tolist())
            recall.append(len(truth & set(view.search(probe, 10).keys.tolist())) / 10)
        figures["hnsw_p50_ms"] = float(np.percentile(timings, 50) * 1000)
        figures["hnsw_p99_ms"] = float(np.percentile(timings, 99) * 1000)
        figures["hnsw_recall_at_10"] = float(np.mean(recall))
        del found, view
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=1000, help="texts timed per way")
    parser.add_argument("--agreement", type=int, default=1000, help="texts compared")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--index-works", type=int, default=20000, help="vectors in the index measured (0: none)"
    )
    parser.add_argument(
        "--also-onnx",
        type=Path,
        action="append",
        default=[],
        help="another ONNX file of the model, timed and compared as the fast path is",
    )
    args = parser.parse_args(argv)
    _django()
    import torch

    from discovery import embedder

    torch.set_num_threads(args.threads)
    texts = texts_of_real_length(max(args.texts, args.agreement))
    timed = texts[: args.texts]
    _say(
        f"{len(timed)} texts, mean {np.mean([len(t) for t in timed]):.0f} characters, "
        f"torch {torch.__version__} on {args.threads} threads"
    )

    plain = _plain_model()

    def plain_embed(batch: list[str]) -> np.ndarray:
        return plain.encode(
            batch, batch_size=32, normalize_embeddings=True, show_progress_bar=False
        )

    figures: dict[str, float] = {}
    figures["plain"], _ = _rate(plain_embed, timed)
    _say(f"plain (256 tokens, batches of 32 as given): {figures['plain']:.1f} texts/s")
    figures["full_sorted"], _ = _rate(lambda b: embedder.embed_texts(b, fast=False), timed)
    _say(f"full precision, sorted by length: {figures['full_sorted']:.1f} texts/s")
    figures["fast"], _ = _rate(lambda b: embedder.embed_texts(b, fast=True), timed)
    _say(f"fast path ({embedder.model_name(fast=True)}, sorted): {figures['fast']:.1f} texts/s")

    others = {path.name: _onnx_embed(path, args.threads) for path in args.also_onnx}
    for name, embed in others.items():
        figures[f"fast:{name}"], _ = _rate(embed, timed)
        _say(f"  {name}, sorted: {figures[f'fast:{name}']:.1f} texts/s")

    compared = texts[: args.agreement]
    full = embedder.embed_texts(compared, fast=False)
    fast = embedder.embed_texts(compared, fast=True)
    agreement = agreement_at_10(full, fast)
    cosine = float(np.mean(np.sum(full * fast, axis=1)))
    _say(
        f"nearest ten agreement, fast vs full precision, {len(compared)} texts: "
        f"{agreement:.1%} (mean cosine of the two vectors of a text {cosine:.3f})"
    )
    for name, embed in others.items():
        other = embed(compared)
        _say(
            f"  {name}: agreement {agreement_at_10(full, other):.1%}, mean cosine "
            f"{float(np.mean(np.sum(full * other, axis=1))):.3f}; with the fast path's "
            f"vectors {float(np.mean(np.sum(fast * other, axis=1))):.4f}"
        )
    # A worker's shapes: one process on every core's thread, one on one thread; a process per
    # core of one thread each (a --concurrency 2 worker now: bzpeer.celery shares the cores
    # out) and of a thread per core each (such a worker before, oversubscribed).
    cores = os.cpu_count() or 1
    for processes, threads in ((1, cores), (1, 1), (cores, 1), (cores, cores)):
        name = f"fast_{processes}p_{threads}t"
        figures[name] = processes_rate(timed, processes, threads)
        _say(
            f"fast path, {processes} process(es) of {threads} thread(s): {figures[name]:.1f} texts/s"
        )
    per_second_two = max(figures["fast"], figures[f"fast_{cores}p_1t"])
    _say(
        f"1M works with two processes at that rate: {1_000_000 / per_second_two / 3600:.1f} h; "
        f"10,000 new works: {10_000 / per_second_two / 60:.1f} min"
    )
    if args.index_works:
        index = index_figures(fast, args.index_works)
        _say(
            f"index of {args.index_works} works: exact float32 {index['exact_file_mb']:.1f} MB, "
            f"search p50 {index['exact_p50_ms']:.1f} ms / p99 {index['exact_p99_ms']:.1f} ms; "
            f"usearch int8 HNSW {index['hnsw_file_mb']:.1f} MB (built in "
            f"{index['hnsw_build_s']:.1f} s), p50 {index['hnsw_p50_ms']:.2f} ms / p99 "
            f"{index['hnsw_p99_ms']:.2f} ms, recall@10 {index['hnsw_recall_at_10']:.1%}; "
            f"HNSW bytes per work {index['hnsw_file_mb'] * 1e6 / args.index_works:.0f}"
        )
        figures.update(index)
    _say(json.dumps({"texts": len(timed), "agreement_at_10": agreement, **figures}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
