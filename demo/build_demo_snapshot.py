"""Build the demo OpenAlex snapshot in demo/openalex/ from the tables in demo/data/.

Run from the repository root:  .venv/bin/python demo/build_demo_snapshot.py

The output mimics the layout of the OpenAlex snapshot (one folder per entity, JSON Lines part
files under updated_date=...), so `manage.py import_openalex demo/openalex --sync` loads it like
real data. The four demo researchers come from the seed pages listed in demo/README.md.

Rules the tables follow:
- Titles and abstracts are the seed text, verbatim (LaTeX such as $\\times$ and 43\\% included).
  A work whose seed gives no abstract gets abstract_inverted_index null.
- Author names are written as the seed prints them, without equal-contribution markers
  ("Zhuang Wang*" -> "Zhuang Wang"); bylines a seed cuts short with "et al." are completed
  from the paper's arXiv listing. The aliases in people.toml join spellings of one person.
- Ids are synthetic (W99..., A99..., I99..., S99...) except arXiv's real source id. arXiv ids,
  DOIs, ROR ids and dates appear only where they were checked; unknown values stay null.
- Everything is derived deterministically: running the script twice gives identical bytes.

The modules beside this script: demo_tables.py reads the tables, openalex_records.py turns them
into OpenAlex records; this script checks the records and writes them.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

import orjson
from demo_tables import SNAPSHOT_DATE, Tables, load_tables
from openalex_records import SnapshotBuilder, rebuild_abstract

OUTPUT_DIR = Path(__file__).resolve().parent / "openalex"
ENTITIES = ("works", "authors", "institutions", "sources")

# Checks run before anything is written: a failed check leaves the old snapshot in place.


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise SystemExit(f"demo snapshot check failed: {message}")


def check(records: dict[str, list[dict[str, Any]]], tables: Tables) -> None:
    ids_by_entity = {}
    for entity, entity_records in records.items():
        ids = [record["id"] for record in entity_records]
        _require(len(ids) == len(set(ids)), f"duplicate ids in {entity}")
        ids_by_entity[entity] = set(ids)

    for work, table_row in zip(records["works"], tables.works, strict=True):
        for location in work["locations"]:
            if location["source"]:
                _require(location["source"]["id"] in ids_by_entity["sources"], work["id"])
        for authorship in work["authorships"]:
            _require(authorship["author"]["id"] in ids_by_entity["authors"], work["id"])
            for inst in authorship["institutions"]:
                _require(inst["id"] in ids_by_entity["institutions"], work["id"])
        for topic in work["topics"]:
            _require(topic["id"].removeprefix("arxiv:") in tables.taxonomy.categories, topic["id"])
        if table_row.abstract is not None:
            rebuilt = rebuild_abstract(work["abstract_inverted_index"])
            _require(rebuilt == table_row.abstract, f"abstract round trip of {work['id']}")
        yearly = sum(entry["cited_by_count"] for entry in work["counts_by_year"])
        _require(yearly == work["cited_by_count"], f"counts_by_year of {work['id']}")
    for author in records["authors"]:
        for inst in author["last_known_institutions"] + [
            affiliation["institution"] for affiliation in author["affiliations"]
        ]:
            _require(inst["id"] in ids_by_entity["institutions"], author["id"])

    def works_of(name: str) -> list[dict[str, Any]]:
        return [
            work
            for work in records["works"]
            if any(a["author"]["display_name"] == name for a in work["authorships"])
        ]

    # Seed 000's profile: 2 works, 3 topics, 4 close collaborators, no affiliation.
    zhong = works_of("Zhizhen Zhong")
    coauthors = {
        a["author"]["id"]
        for work in zhong
        for a in work["authorships"]
        if a["author"]["display_name"] != "Zhizhen Zhong"
    }
    topics = {topic["id"] for work in zhong for topic in work["topics"]}
    _require(len(zhong) == 2, "Zhizhen Zhong has exactly 2 works")
    _require(len(coauthors) == 4, "Zhizhen Zhong has exactly 4 coauthors")
    _require(len(topics) == 3, "Zhizhen Zhong's works carry exactly 3 topics")
    # Seed 002's profile: 8 papers, 63 citations.
    zhu = works_of("Zhenhua Zhu")
    _require(len(zhu) == 8, "Zhenhua Zhu has 8 works")
    _require(sum(work["cited_by_count"] for work in zhu) == 63, "Zhenhua Zhu has 63 citations")

    # No personal contact data: no e-mail addresses anywhere in the output.
    _require(b"@" not in orjson.dumps(records), "an '@' slipped into the snapshot")


def write(records: dict[str, list[dict[str, Any]]], output_dir: Path) -> None:
    """Replace the entity folders under output_dir with the records, one part file each."""
    for entity in ENTITIES:
        entity_dir = output_dir / entity
        if entity_dir.exists():
            shutil.rmtree(entity_dir)
        folder = entity_dir / f"updated_date={SNAPSHOT_DATE}"
        folder.mkdir(parents=True)
        lines = (
            orjson.dumps(record, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE)
            for record in records[entity]
        )
        (folder / "part_000").write_bytes(b"".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description="Build the demo OpenAlex snapshot.")
    parser.add_argument(
        "--output-dir",
        type=Path,
        default=OUTPUT_DIR,
        help="where to write the snapshot (default: demo/openalex)",
    )
    args = parser.parse_args()
    tables = load_tables()
    records = SnapshotBuilder(tables).build()
    check(records, tables)
    write(records, args.output_dir)


if __name__ == "__main__":
    main()
