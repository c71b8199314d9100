"""Real titles and abstracts from the shared corpus's OpenAlex records (the discovery tests and
bench/embedding_bench.py embed them). Read where they lie, never copied into the repository."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from ingest.openalex.mapper.works import abstract_from_inverted_index


@dataclass(frozen=True)
class RealAbstract:
    openalex_id: str
    title: str
    abstract: str
    doi: str | None


def _records(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        text = handle.read()
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if isinstance(document, dict) and "meta" in document:
        return document.get("results") or []
    return [document]


def real_abstracts(testdata_dir: Path) -> list[RealAbstract]:
    """Every OpenAlex work of the corpus with a title and an abstract, once each, by id."""
    works_dirs = [
        testdata_dir / "openalex" / "api" / "works",
        testdata_dir / "openalex" / "snapshot" / "works",
    ]
    found: dict[str, RealAbstract] = {}
    for works_dir in works_dirs:
        for path in sorted(p for p in works_dir.rglob("*") if p.is_file() and p.name != "manifest"):
            for record in _records(path):
                if not isinstance(record, dict):
                    continue
                openalex_id = str(record.get("id") or "").rsplit("/", 1)[-1]
                title = record.get("title") or record.get("display_name") or ""
                try:
                    abstract = abstract_from_inverted_index(record.get("abstract_inverted_index"))
                except Exception:  # noqa: BLE001,S112 - an unreadable abstract is not a test input
                    continue
                if openalex_id and title and len(abstract) >= 150 and openalex_id not in found:
                    doi = record.get("doi")
                    found[openalex_id] = RealAbstract(openalex_id, title, abstract, doi)
    return list(found.values())
