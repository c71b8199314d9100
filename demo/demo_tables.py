"""The demo tables: their shape, and reading them from the TOML files in demo/data/.

The data files hold what the seed pages say (people, works, institutions, sources, topics); this
module turns them into typed rows and nothing else. demo/README.md describes the fields.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"
SNAPSHOT_DATE = "2026-11-01"
SNAPSHOT_YEAR = 2026
# A CV or homepage entry that runs "to present" is taken to run to the snapshot year.
PRESENT = "present"
PRESENT_YEAR = SNAPSHOT_YEAR


@dataclass(frozen=True)
class Institution:
    key: str
    display_name: str
    country_code: str
    type: str
    homepage_url: str | None = None
    ror: str | None = None
    alternatives: tuple[str, ...] = ()


@dataclass(frozen=True)
class Source:
    key: str
    display_name: str
    abbreviated_title: str
    type: str
    homepage_url: str | None = None
    issn_l: str | None = None
    openalex_id: str | None = None
    alternate_titles: tuple[str, ...] = ()


@dataclass(frozen=True)
class Person:
    display_name: str
    alternatives: tuple[str, ...] = ()
    # (institution key, first year, last year) from a CV or homepage timeline. Empty: the
    # affiliations are derived from the institutions on the person's bylines.
    timeline: tuple[tuple[str, int, int], ...] = ()
    last_known: tuple[str, ...] | None = None  # None: derived from the latest byline
    no_affiliations: bool = False


@dataclass(frozen=True)
class Work:
    title: str
    year: int
    type: str
    authors: tuple[str, ...]  # "Name" or "Name [institution key, ...]", in byline order
    topics: tuple[str, ...]  # arXiv categories, primary first
    cited_by_count: int
    date: str | None = None  # only when the seed or the arXiv listing gives the day
    venue: str | None = None  # key into the sources
    arxiv_id: str | None = None
    doi: str | None = None
    landing_page_url: str | None = None
    abstract: str | None = None
    language: str = "en"


@dataclass(frozen=True)
class Taxonomy:
    """arXiv categories placed in OpenAlex's subfield > field > domain taxonomy."""

    domains: dict[str, str]  # id -> name
    fields: dict[str, tuple[str, str]]  # id -> (name, domain id)
    subfields: dict[str, tuple[str, str]]  # id -> (name, field id)
    categories: dict[str, tuple[str, str]]  # category -> (official arXiv name, subfield id)


@dataclass(frozen=True)
class Tables:
    taxonomy: Taxonomy
    institutions: tuple[Institution, ...]
    sources: tuple[Source, ...]
    people: tuple[Person, ...]
    name_aliases: dict[str, str]  # a spelling of a person -> their author record's name
    works: tuple[Work, ...]


def _read(path: Path) -> dict[str, Any]:
    with path.open("rb") as file:
        return tomllib.load(file)


def _tuples(row: dict[str, Any]) -> dict[str, Any]:
    # The rows are frozen dataclasses: lists from TOML become tuples.
    return {key: tuple(value) if isinstance(value, list) else value for key, value in row.items()}


def _unwrap(wrapped: str) -> str:
    """Join a paragraph wrapped over several lines back into one line.

    The abstracts are wrapped only at single spaces, so joining the stripped lines with one
    space restores the seed text exactly.
    """
    return " ".join(line.strip() for line in wrapped.strip().splitlines())


def _person(row: dict[str, Any]) -> Person:
    timeline = tuple(
        (
            entry["institution"],
            entry["first_year"],
            PRESENT_YEAR if entry["last_year"] == PRESENT else entry["last_year"],
        )
        for entry in row.get("timeline", ())
    )
    return Person(**_tuples(row) | {"timeline": timeline})


def _work(row: dict[str, Any]) -> Work:
    fields = _tuples(row)
    if "abstract" in fields:
        fields["abstract"] = _unwrap(fields["abstract"])
    return Work(**fields)


def _taxonomy(data: dict[str, Any]) -> Taxonomy:
    return Taxonomy(
        domains=dict(data["domains"]),
        fields={key: (row["name"], row["domain"]) for key, row in data["fields"].items()},
        subfields={key: (row["name"], row["field"]) for key, row in data["subfields"].items()},
        categories={key: (row["name"], row["subfield"]) for key, row in data["categories"].items()},
    )


def load_tables(data_dir: Path = DATA_DIR) -> Tables:
    """Read every table; works come from works/*.toml in file-name order (the id order)."""
    people = _read(data_dir / "people.toml")
    return Tables(
        taxonomy=_taxonomy(_read(data_dir / "topics.toml")),
        institutions=tuple(
            Institution(**_tuples(row))
            for row in _read(data_dir / "institutions.toml")["institutions"]
        ),
        sources=tuple(
            Source(**_tuples(row)) for row in _read(data_dir / "sources.toml")["sources"]
        ),
        people=tuple(_person(row) for row in people["people"]),
        name_aliases=dict(people["aliases"]),
        works=tuple(
            _work(row)
            for path in sorted((data_dir / "works").glob("*.toml"))
            for row in _read(path)["works"]
        ),
    )
