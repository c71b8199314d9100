"""Build the shipped resolver model (ingest/resolution/resolver_model.txt and .json) from the
repo's training set: `python -m bench.resolver_train [--database NAME]`.

The training set is the synthetic corpus of bench.resolver_synthetic at TRAIN_SEED (and the
seeds after it, --corpora), never the evaluation's seed nor the real test corpus (which the
evaluation measures): it is imported with its identifiers into a scratch database, then every
identified mention becomes a hidden one (ingest.resolution.training: its own work left out of
its candidates' evidence) paired with each name-compatible candidate. Deterministic: fixed
seeds, LightGBM with one thread. The scratch database is left empty (rolled back).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def build_training_pairs(corpora: int) -> Any:
    from django.db import connection

    from bench.resolver_eval import _write
    from bench.resolver_synthetic import TRAIN_SEED, synthetic_records
    from ingest.resolution.training import identified_authorships, labelled_pairs

    for offset in range(corpora):
        _write(synthetic_records(TRAIN_SEED + offset))
    with connection.cursor() as cursor:
        ids = identified_authorships(cursor, limit=1_000_000, seed=TRAIN_SEED)
        return labelled_pairs(cursor.cursor, ids)


def main(argv: Sequence[str] | None = None) -> int:
    from bench.harness import django_in_process

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="bzpeer_bench_resolver_train")
    parser.add_argument("--corpora", type=int, default=3, help="synthetic corpora to train on")
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="write resolver_model.txt and .json here instead of over the shipped files",
    )
    args = parser.parse_args(argv)
    django_in_process(args.database)
    from django.db import transaction

    from bench.resolver_synthetic import TRAIN_SEED
    from ingest.resolution.model import META_FILE, MODEL_FILE, train

    class Rollback(Exception):
        pass

    pairs = None
    try:
        with transaction.atomic():
            pairs = build_training_pairs(args.corpora)
            raise Rollback
    except Rollback:
        pass
    assert pairs is not None  # noqa: S101 - set inside the rolled-back block
    figures = train(
        pairs.rows,
        pairs.labels,
        pairs.groups,
        pairs.eligible,
        version=f"synthetic-{TRAIN_SEED}x{args.corpora}",
        model_file=args.output / MODEL_FILE.name if args.output else MODEL_FILE,
        meta_file=args.output / META_FILE.name if args.output else META_FILE,
    )
    for key, value in figures.items():
        if key != "features":
            sys.stdout.write(f"{key}: {value}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
