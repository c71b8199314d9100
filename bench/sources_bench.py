"""The sources benchmark: `python -m bench.sources_bench --records N` (`make bench`).

For each source other than OpenAlex (Crossref, arXiv, ORCID, BibTeX) it imports a synthetic
file of N records with `manage.py import SOURCE PATH --sync --no-progress` in a subprocess and
reports its rate beside the OpenAlex path's rate measured in the same run, with the peak memory
of the process tree and what the run counted (created, updated, failed, import issues).

Each source is measured on the same ground: the database is emptied, the OpenAlex file of N
works is imported (measured: the OpenAlex rate of that step), then the source's file (measured).
A realistic share of each source's works are OpenAlex works (same DOI, title and authors), so
the merge path runs; the report checks that exactly those joined an existing work.

The files are synthetic and deterministic, in the shape the readers take (cached under
bench-data/sources-r{N}-s{seed}-p{page}-b{bib}/), with no personal data: names from syllables,
DOIs under 10.99999/, arXiv ids 99MM.NNNNN, ORCID iDs with valid check digits in the unused
0000-0009- block. Nothing here asserts a duration: these are figures, not a test.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import orjson
import psycopg
from psycopg import sql

from bench import smoke
from bench.harness import DATA_DIR, REPO_ROOT, Corpus, bench_environment, corpus_prepare, say, shown
from bench.import_bench import MEMORY_BUDGET_MB
from bench.measure import (
    BUSY_SHARE,
    ProcessFigures,
    busy_note,
    git_revision,
    machine_describe,
    other_imports_running,
    run_measured,
)
from tests.support.synthetic import _SYLLABLES, _WORDS

SOURCES = ("crossref", "arxiv", "orcid", "bibtex")
OPENALEX = "openalex"
# The apps whose tables an import writes; emptied (TRUNCATE ... CASCADE) before each source.
EMPTIED_APPS = ("publications_", "researchers_", "graph_", "imports_")
OVERLAP_TENTHS = 3  # records k with k % 10 < 3 are OpenAlex works: 30% of every source
ARXIV_DOI_TENTHS = 4  # arXiv entries k % 10 < 4 carry a publisher DOI (Crossref's work k)
DOI_PREFIX = "10.99999"
_MULTIPLIERS = (7919, 7907, 7901, 7883, 7877)  # primes; one coprime with N makes a permutation
_SALTS = {"crossref": 0, "orcid": 104_729, "bibtex": 224_737}
_CATEGORIES = ("cs.LG", "cs.DC", "cs.NI", "physics.optics", "q-bio.BM", "quant-ph", "cs.PL")
_ROLES = ("Professor", "Associate Professor", "Research Scientist", "Postdoctoral Fellow")
_COUNTRIES = ("US", "DE", "FR", "JP", "BR", "IN", "CH", "NL")
_MONTH_MACROS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


# --- the synthetic world: people, titles, identifiers -------------------------------------------


def _word(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(syllables)).capitalize()


def _token(index: int, salt: str) -> str:
    """A made-up word unique to (index, salt): the index in base 26 spelt in syllables, so two
    works never share a title (the title key would otherwise join them)."""
    digits = [_SYLLABLES[ord(salt[0]) % len(_SYLLABLES)]]
    while True:
        index, digit = divmod(index, len(_SYLLABLES))
        digits.append(_SYLLABLES[digit])
        if not index:
            break
    return "".join(digits).capitalize()


@cache
def person(number: int) -> tuple[str, str]:
    """(given, family) of person `number` of the shared pool, the same in every file."""
    rng = random.Random(f"person:{number}")
    return _word(rng, rng.randint(1, 2)), _word(rng, rng.randint(1, 3))


def orcid_id(number: int) -> str:
    """An ORCID iD in 0000-0009-..., a block ORCID does not issue, with a valid check digit."""
    base = f"00000009{number:07d}"
    total = 0
    for char in base:
        total = (total + int(char)) * 2
    check = (12 - total % 11) % 11
    digits = base + ("X" if check == 10 else str(check))
    return "-".join(digits[i : i + 4] for i in range(0, 16, 4))


def arxiv_id(index: int) -> str:
    """9912.00000, 9912.00001, ... then 9911.xxxxx: months arXiv never used with 5 digits."""
    month, number = divmod(index, 100_000)
    return f"99{12 - month:02d}.{number:05d}"


def overlaps(index: int) -> bool:
    return index % 10 < OVERLAP_TENTHS


def overlap_index(source: str, index: int, records: int) -> int | None:
    """The OpenAlex work that record `index` of `source` is (a permutation of 0..records-1,
    so no two records of a file are the same work), or None for a work of its own."""
    if not overlaps(index):
        return None
    multiplier = next(m for m in _MULTIPLIERS if math.gcd(m, records) == 1)
    return (index * multiplier + _SALTS[source]) % records


def _title(rng: random.Random, index: int, salt: str) -> str:
    words = rng.sample(_WORDS, rng.randint(3, 5))
    return f"{' '.join(words).capitalize()} for {_token(index, salt)} systems"


def _coauthors(rng: random.Random, records: int) -> list[int]:
    """Person numbers for a byline: 1-8 mostly, skewed so some people are prolific."""
    pool = max(1, records // 2)
    count = max(1, min(12, int(rng.lognormvariate(1.2, 0.5))))
    return list(dict.fromkeys(int(pool * rng.random() ** 2.2) for _ in range(count)))


def _abstract(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(30, 90))).capitalize() + "."


@dataclass(frozen=True, slots=True)
class OpenAlexWork:
    """What the other sources repeat of an OpenAlex work they share."""

    doi: str
    title: str
    year: int
    month: int
    journal: str
    authors: tuple[str, ...]  # display names, in byline order


def openalex_overlap(corpus: Corpus, records: int) -> dict[int, OpenAlexWork]:
    """The OpenAlex works some record of another source is, read from the corpus file."""
    wanted = {
        target
        for source in _SALTS
        for index in range(records)
        if (target := overlap_index(source, index, records)) is not None
    }
    found: dict[int, OpenAlexWork] = {}
    for path in sorted((REPO_ROOT / corpus.path).rglob("part_*")):
        with path.open("rb") as handle:
            for index, line in enumerate(handle):
                if index not in wanted:
                    continue
                work = orjson.loads(line)
                found[index] = OpenAlexWork(
                    doi=work["doi"].removeprefix("https://doi.org/"),
                    title=work["title"],
                    year=work["publication_year"],
                    month=int(work["publication_date"][5:7]),
                    journal=work["primary_location"]["source"]["display_name"],
                    authors=tuple(a["author"]["display_name"] for a in work["authorships"]),
                )
    return found


def _split(name: str) -> tuple[str, str]:
    given, _, family = name.rpartition(" ")
    return given, family


# --- Crossref: REST work-list pages --------------------------------------------------------------


def crossref_item(index: int, records: int, overlap: dict[int, OpenAlexWork]) -> dict[str, Any]:
    rng = random.Random(f"crossref:{index}")
    target = overlap_index("crossref", index, records)
    if target is not None:
        shared = overlap[target]
        doi, title, year, month = shared.doi, shared.title, shared.year, shared.month
        journal, names = shared.journal, [_split(name) for name in shared.authors]
        orcids: list[str | None] = [None] * len(names)
    else:
        doi, title = f"{DOI_PREFIX}/crossref.{index}", _title(rng, index, "crossref")
        year, month = rng.randint(1995, 2025), rng.randint(1, 12)
        journal = f"Journal of {_word(rng, 2)} Studies"
        people = _coauthors(rng, records)
        names = [person(p) for p in people]
        orcids = [orcid_id(p) if p % 5 == 0 else None for p in people]
    authors: list[dict[str, Any]] = []
    for position, ((given, family), orcid) in enumerate(zip(names, orcids, strict=True)):
        author: dict[str, Any] = {
            "given": given,
            "family": family,
            "sequence": "first" if position == 0 else "additional",
            "affiliation": [{"name": f"Institute {rng.randrange(2000)}"}]
            if rng.random() < 0.6
            else [],
        }
        if orcid:
            author["ORCID"] = f"https://orcid.org/{orcid}"
            author["authenticated-orcid"] = rng.random() < 0.5
        authors.append(author)
    if rng.random() < 0.05:
        authors.append(
            {"name": f"The {_word(rng, 2)} Consortium", "sequence": "additional", "affiliation": []}
        )
    roll = rng.random()
    date_parts = (
        [year]
        if roll < 0.05
        else [year, month]
        if roll < 0.2
        else [year, month, rng.randint(1, 28)]
    )
    work_type = "proceedings-article" if rng.random() < 0.2 else "journal-article"
    return {
        "indexed": {
            "date-parts": [[2026, 1, 2]],
            "date-time": "2026-01-02T03:04:05Z",
            "timestamp": 1767323045000,
        },
        "reference-count": rng.randint(0, 60),
        "publisher": f"{_word(rng, 2)} Press",
        "issue": str(rng.randint(1, 12)),
        "abstract": f"<jats:title>Abstract</jats:title><jats:p>{_abstract(rng)}</jats:p>",
        "DOI": doi,
        "type": work_type,
        "created": {
            "date-parts": [[year, month, 1]],
            "date-time": f"{year}-{month:02d}-01T00:00:00Z",
        },
        "page": f"{rng.randint(1, 400)}-{rng.randint(401, 800)}",
        "source": "Crossref",
        "is-referenced-by-count": int(rng.paretovariate(1.2)) - 1,
        "title": [title],
        "prefix": DOI_PREFIX,
        "volume": str(rng.randint(1, 80)),
        "author": authors,
        "member": "99999",
        "container-title": [journal],
        "short-container-title": [journal.replace("Journal of", "J.")],
        "language": "en",
        "deposited": {
            "date-parts": [[2025, 6, 1]],
            "date-time": "2025-06-01T10:00:00Z",
            "timestamp": 1748772000000,
        },
        "issued": {"date-parts": [date_parts]},
        "URL": f"https://doi.org/{doi}",
        "ISSN": [f"9999-{index % 1000:03d}X"],
        "subject": [],
    }


def write_crossref(folder: Path, records: int, page: int, overlap: dict[int, OpenAlexWork]) -> int:
    folder.mkdir(parents=True)
    for number, start in enumerate(range(0, records, page)):
        items = [
            crossref_item(i, records, overlap) for i in range(start, min(start + page, records))
        ]
        answer = {
            "status": "ok",
            "message-type": "work-list",
            "message-version": "1.0.0",
            "message": {
                "facets": {},
                "next-cursor": f"synthetic-cursor-{number + 1}",
                "total-results": records,
                "items": items,
                "items-per-page": page,
                "query": {"start-index": 0, "search-terms": None},
            },
        }
        (folder / f"works-page-{number:05d}.json").write_bytes(orjson.dumps(answer))
    return records


# --- arXiv: Atom API feed pages ------------------------------------------------------------------

_FEED_HEAD = """<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">
  <id>https://arxiv.org/api/synthetic-{number}</id>
  <title>arXiv Query: search_query=cat:cs.LG&amp;id_list=&amp;start={start}&amp;max_results={page}</title>
  <updated>2026-01-02T03:04:05Z</updated>
  <link href="https://arxiv.org/api/query?search_query=cat:cs.LG&amp;start={start}&amp;max_results={page}&amp;id_list=" type="application/atom+xml"/>
  <opensearch:itemsPerPage>{page}</opensearch:itemsPerPage>
  <opensearch:totalResults>{total}</opensearch:totalResults>
  <opensearch:startIndex>{start}</opensearch:startIndex>
"""


def arxiv_entry(index: int, records: int, overlap: dict[int, OpenAlexWork]) -> str:
    """Entry k carries Crossref work k's DOI for k % 10 < 4: its 30% shared with OpenAlex
    (same title and authors) and 10% Crossref only."""
    rng = random.Random(f"arxiv:{index}")
    identifier = arxiv_id(index)
    target = overlap_index("crossref", index, records)
    doi: str | None = None
    if target is not None:
        shared = overlap[target]
        doi, title, year, names = shared.doi, shared.title, shared.year, list(shared.authors)
    else:
        title, year = _title(rng, index, "arxiv"), rng.randint(1995, 2025)
        names = [" ".join(person(p)) for p in _coauthors(rng, records)]
        if index % 10 < ARXIV_DOI_TENTHS:
            doi = f"{DOI_PREFIX}/crossref.{index}"
    version = 1 if rng.random() < 0.6 else rng.randint(2, 5)
    published = (
        f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00Z"
    )
    updated = (
        published
        if version == 1
        else f"{min(year + 1, 2025)}-{rng.randint(1, 12):02d}-15T12:00:00Z"
    )
    categories = rng.sample(_CATEGORIES, rng.randint(1, 3))
    lines = [
        "  <entry>",
        f"    <id>http://arxiv.org/abs/{identifier}v{version}</id>",
        f"    <title>{escape(title)}</title>",
        f"    <updated>{updated}</updated>",
        f'    <link href="https://arxiv.org/abs/{identifier}v{version}" rel="alternate" type="text/html"/>',
        f'    <link href="https://arxiv.org/pdf/{identifier}v{version}" rel="related" type="application/pdf" title="pdf"/>',
        f"    <summary>{escape(_abstract(rng))}</summary>",
        *(f'    <category term="{c}" scheme="http://arxiv.org/schemas/atom"/>' for c in categories),
        f"    <published>{published}</published>",
        f"    <arxiv:comment>{rng.randint(4, 40)} pages, {rng.randint(1, 9)} figures</arxiv:comment>",
        f'    <arxiv:primary_category term="{categories[0]}"/>',
    ]
    if doi:
        lines.append(
            f"    <arxiv:journal_ref>{escape(f'J. Synth. {rng.randint(1, 80)} ({year})')}</arxiv:journal_ref>"
        )
        lines.append(f"    <arxiv:doi>{doi}</arxiv:doi>")
        lines.append(
            f'    <link href={quoteattr("https://doi.org/" + doi)} rel="related" title="doi"/>'
        )
    for name in names:
        lines.append("    <author>")
        lines.append(f"      <name>{escape(name)}</name>")
        if rng.random() < 0.3:
            lines.append(
                f"      <arxiv:affiliation>Institute {rng.randrange(2000)}</arxiv:affiliation>"
            )
        lines.append("    </author>")
    lines.append("  </entry>")
    return "\n".join(lines) + "\n"


def write_arxiv(folder: Path, records: int, page: int, overlap: dict[int, OpenAlexWork]) -> int:
    folder.mkdir(parents=True)
    for number, start in enumerate(range(0, records, page)):
        with (folder / f"query-page-{number:05d}.atom.xml").open("w", encoding="utf-8") as out:
            out.write(_FEED_HEAD.format(number=number, start=start, page=page, total=records))
            for index in range(start, min(start + page, records)):
                out.write(arxiv_entry(index, records, overlap))
            out.write("</feed>\n")
    return records


# --- ORCID: v3.0 /record answers, one a file -----------------------------------------------------


def _orcid_date(year: int, month: int | None) -> dict[str, Any]:
    return {
        "year": {"value": str(year)},
        "month": {"value": f"{month:02d}"} if month else None,
        "day": None,
    }


def _orcid_org(rng: random.Random) -> dict[str, Any]:
    return {
        "name": f"University of {_word(rng, 2)}",
        "address": {"city": _word(rng, 2), "region": None, "country": rng.choice(_COUNTRIES)},
        "disambiguated-organization": None,
    }


def _orcid_ext(kind: str, value: str, relationship: str) -> dict[str, Any]:
    return {
        "external-id-type": kind,
        "external-id-value": value,
        "external-id-normalized": {"value": value.lower(), "transient": True},
        "external-id-normalized-error": None,
        "external-id-url": {"value": f"https://doi.org/{value}"} if kind == "doi" else None,
        "external-id-relationship": relationship,
    }


def _orcid_work(
    orcid: str,
    put_code: int,
    title: str,
    year: int,
    journal: str,
    doi: str | None,
    *,
    source: str,
    display: int,
) -> dict[str, Any]:
    ids = [_orcid_ext("doi", doi, "self")] if doi else []
    ids.append(_orcid_ext("issn", f"9999-{put_code % 1000:03d}X", "part-of"))
    return {
        "put-code": put_code,
        "created-date": {"value": 1700000000000},
        "last-modified-date": {"value": 1700000000000},
        "source": {
            "source-orcid": None,
            "source-client-id": None,
            "source-name": {"value": source},
        },
        "title": {"title": {"value": title}, "subtitle": None, "translated-title": None},
        "external-ids": {"external-id": ids},
        "url": {"value": f"https://doi.org/{doi}"} if doi else None,
        "type": "journal-article",
        "publication-date": _orcid_date(year, put_code % 12 + 1 if put_code % 3 else None),
        "journal-title": {"value": journal},
        "visibility": "public",
        "path": f"/{orcid}/work/{put_code}",
        "display-index": str(display),
    }


def orcid_record(
    index: int, records: int, overlap: dict[int, OpenAlexWork]
) -> tuple[dict[str, Any], int]:
    """The record of person `index` (or, for 30%, of the first author of an OpenAlex work, who
    lists that work first): returns (answer, number of work groups)."""
    rng = random.Random(f"orcid:{index}")
    orcid = orcid_id(index)
    target = overlap_index("orcid", index, records)
    groups: list[dict[str, Any]] = []
    if target is not None:
        shared = overlap[target]
        given, family = _split(shared.authors[0])
        # Two sources assert the work (Crossref's auto-update and the researcher): one group.
        summaries = [
            _orcid_work(
                orcid,
                index * 10 + 9,
                shared.title,
                shared.year,
                shared.journal,
                shared.doi,
                source="Crossref",
                display=1,
            ),
            _orcid_work(
                orcid,
                index * 10 + 8,
                shared.title,
                shared.year,
                shared.journal,
                shared.doi,
                source=f"{given} {family}",
                display=0,
            ),
        ]
        groups.append(
            {
                "external-ids": {"external-id": [_orcid_ext("doi", shared.doi, "self")]},
                "work-summary": summaries,
            }
        )
    else:
        given, family = person(index)
    for number in range(rng.randint(1, 4) - bool(groups)):
        title = _title(rng, index * 10 + number, "orcid")
        doi = f"{DOI_PREFIX}/orcid.{index}.{number}" if rng.random() < 0.7 else None
        work = _orcid_work(
            orcid,
            index * 10 + number,
            title,
            rng.randint(1995, 2025),
            f"Journal of {_word(rng, 2)}",
            doi,
            source=f"{given} {family}",
            display=1,
        )
        ids = [_orcid_ext("doi", doi, "self")] if doi else []
        groups.append({"external-ids": {"external-id": ids}, "work-summary": [work]})
    start = rng.randint(1990, 2020)

    def affiliation(
        kind: str, put_code: int, role: str, begin: int, end: int | None
    ) -> dict[str, Any]:
        return {
            "affiliation-group": [
                {
                    "external-ids": {"external-id": []},
                    "summaries": [
                        {
                            f"{kind}-summary": {
                                "put-code": put_code,
                                "department-name": f"Department of {_word(rng, 2)}",
                                "role-title": role,
                                "start-date": _orcid_date(
                                    begin, rng.randint(1, 12) if rng.random() < 0.6 else None
                                ),
                                "end-date": _orcid_date(end, None) if end else None,
                                "organization": _orcid_org(rng),
                                "url": None,
                                "external-ids": None,
                                "display-index": "1",
                                "visibility": "public",
                                "path": f"/{orcid}/{kind}/{put_code}",
                            }
                        }
                    ],
                }
            ]
        }

    activities: dict[str, Any] = {
        "employments": affiliation(
            "employment", index * 10 + 5, rng.choice(_ROLES), start + 5, None
        ),
        "educations": affiliation("education", index * 10 + 6, "PhD", start, start + 5),
        "works": {"group": groups},
    }
    if rng.random() < 0.3:
        activities["distinctions"] = affiliation(
            "distinction", index * 10 + 7, f"{_word(rng, 2)} Prize", start + 8, None
        )
    if rng.random() < 0.3:
        activities["fundings"] = {
            "group": [
                {
                    "external-ids": {"external-id": []},
                    "funding-summary": [
                        {
                            "put-code": index * 10 + 4,
                            "title": {
                                "title": {"value": f"{_word(rng, 2)} networks"},
                                "translated-title": None,
                            },
                            "type": "grant",
                            "organization": _orcid_org(rng),
                            "start-date": _orcid_date(start + 6, None),
                            "end-date": _orcid_date(start + 9, None),
                            "external-ids": {
                                "external-id": [
                                    {
                                        "external-id-type": "grant_number",
                                        "external-id-value": f"SYN-{index}",
                                        "external-id-relationship": "self",
                                    }
                                ]
                            },
                            "visibility": "public",
                            "display-index": "1",
                        }
                    ],
                }
            ]
        }
    answer = {
        "orcid-identifier": {
            "uri": f"https://orcid.org/{orcid}",
            "path": orcid,
            "host": "orcid.org",
        },
        "person": {
            "name": {
                "given-names": {"value": given},
                "family-name": {"value": family},
                "credit-name": None,
                "visibility": "public",
                "path": orcid,
            },
            "other-names": {"other-name": []},
            "biography": {"content": _abstract(rng), "visibility": "public"}
            if rng.random() < 0.4
            else None,
            "researcher-urls": {"researcher-url": []},
            "keywords": {
                "keyword": [
                    {"content": w, "visibility": "public", "display-index": 1}
                    for w in rng.sample(_WORDS, 2)
                ]
            },
            "external-identifiers": {"external-identifier": []},
            "addresses": {
                "address": [{"country": {"value": rng.choice(_COUNTRIES)}, "visibility": "public"}]
            },
            "path": f"/{orcid}/person",
        },
        "activities-summary": activities,
        "path": f"/{orcid}",
    }
    return answer, len(groups)


def write_orcid(folder: Path, records: int, overlap: dict[int, OpenAlexWork]) -> int:
    """One file per record, as the public API answers /record; 1,000 files a folder."""
    works = 0
    for index in range(records):
        answer, groups = orcid_record(index, records, overlap)
        works += groups
        shard = folder / f"{index // 1000:04d}"
        shard.mkdir(parents=True, exist_ok=True)
        (shard / f"record_{orcid_id(index)}.json").write_bytes(orjson.dumps(answer))
    return works


# --- BibTeX ------------------------------------------------------------------------------------


def _bib_name(given: str, family: str, rng: random.Random) -> str:
    if "o" in family and rng.random() < 0.05:
        family = family.replace("o", '{\\"o}', 1)  # an accent written the LaTeX way
    return f"{family}, {given}"


def bibtex_entry(index: int, records: int, overlap: dict[int, OpenAlexWork]) -> str:
    """30% OpenAlex works (DOI, title, authors), 20% other DOIs, 10% arXiv preprints, the rest
    with neither (matched on title, year and first author)."""
    rng = random.Random(f"bibtex:{index}")
    target = overlap_index("bibtex", index, records)
    fields: list[tuple[str, str]] = []
    entry_type = "article"
    if target is not None:
        shared = overlap[target]
        names = [_split(name) for name in shared.authors]
        title, year, month = shared.title, shared.year, shared.month
        fields.append(("journal", f"{{{shared.journal}}}"))
        fields.append(("doi", f"{{{shared.doi}}}"))
    else:
        names = [person(p) for p in _coauthors(rng, records)]
        title, year, month = (
            _title(rng, index, "bibtex"),
            rng.randint(1995, 2025),
            rng.randint(1, 12),
        )
        roll = index % 10
        if roll < 5:
            fields.append(
                ("journal", "jsyn" if rng.random() < 0.3 else f"{{Journal of {_word(rng, 2)}}}")
            )
            fields.append(("doi", f"{{{DOI_PREFIX}/bibtex.{index}}}"))
        elif roll < 6:
            entry_type = "misc"
            fields += [
                ("eprint", f"{{{arxiv_id(index)}}}"),
                ("archiveprefix", "{arXiv}"),
                ("primaryclass", f"{{{rng.choice(_CATEGORIES)}}}"),
            ]
        else:
            entry_type = "inproceedings"
            fields.append(("booktitle", f"{{Proceedings of the {_word(rng, 2)} Conference}}"))
    authors = " and ".join(_bib_name(g, f, rng) for g, f in names)
    if rng.random() < 0.03:
        authors += " and others"
    head = [("author", f"{{{authors}}}"), ("title", f"{{{title}}}"), ("year", f"{{{year}}}")]
    if rng.random() < 0.7:
        head.append(("month", _MONTH_MACROS[month - 1]))
    tail = [("pages", f"{{{rng.randint(1, 300)}--{rng.randint(301, 600)}}}")]
    if rng.random() < 0.3:
        tail.append(("abstract", f"{{{_abstract(rng)}}}"))
    body = ",\n".join(f"  {name} = {value}" for name, value in (*head, *fields, *tail))
    return f"@{entry_type}{{syn{index},\n{body}\n}}\n\n"


def write_bibtex(
    folder: Path, records: int, per_file: int, overlap: dict[int, OpenAlexWork]
) -> int:
    folder.mkdir(parents=True)
    for number, start in enumerate(range(0, records, per_file)):
        with (folder / f"library-{number:05d}.bib").open("w", encoding="utf-8") as out:
            out.write('@string{jsyn = "Journal of Synthetic " # "Studies"}\n\n')
            for index in range(start, min(start + per_file, records)):
                out.write(bibtex_entry(index, records, overlap))
    return records


# --- the files, cached -------------------------------------------------------------------------


@dataclass
class SourceFile:
    source: str
    path: str  # relative to the repository
    files: int
    records: int  # raw records the reader yields
    work_records: int  # works those records hold (an ORCID record lists several)
    openalex_works: int  # of those, works that are OpenAlex works: they must merge
    bytes: int


@dataclass
class SourceFiles:
    folder: str
    records: int
    seed: int
    page: int
    bib_per_file: int
    generated_seconds: float
    files: dict[str, SourceFile]


def files_prepare(
    *, corpus: Corpus, records: int, seed: int, page: int, bib_per_file: int
) -> SourceFiles:
    """The cached files for these parameters, generated first when missing (into a temporary
    folder renamed at the end, so an interrupted run never leaves half of them)."""
    folder = DATA_DIR / f"sources-r{records}-s{seed}-p{page}-b{bib_per_file}"
    summary = folder / "sources.json"
    if summary.exists():
        cached = json.loads(summary.read_text())
        cached["files"] = {k: SourceFile(**v) for k, v in cached["files"].items()}
        return SourceFiles(**cached)
    say(f"generating {records:,} records per source into {shown(folder)} ...")
    started = time.perf_counter()
    staging = folder.with_name(folder.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    overlap = openalex_overlap(corpus, records)
    shared = sum(overlaps(i) for i in range(records))
    work_counts = {
        "crossref": write_crossref(staging / "crossref", records, page, overlap),
        "arxiv": write_arxiv(staging / "arxiv", records, page, overlap),
        "orcid": write_orcid(staging / "orcid", records, overlap),
        "bibtex": write_bibtex(staging / "bibtex", records, bib_per_file, overlap),
    }
    files = {}
    for source in SOURCES:
        paths = [p for p in (staging / source).rglob("*") if p.is_file()]
        files[source] = SourceFile(
            source=source,
            path=shown(folder / source),
            files=len(paths),
            records=records,
            work_records=work_counts[source],
            openalex_works=shared,
            bytes=sum(p.stat().st_size for p in paths),
        )
    prepared = SourceFiles(
        folder=shown(folder),
        records=records,
        seed=seed,
        page=page,
        bib_per_file=bib_per_file,
        generated_seconds=round(time.perf_counter() - started, 1),
        files=files,
    )
    (staging / "sources.json").write_text(json.dumps(asdict(prepared), indent=2))
    shutil.rmtree(folder, ignore_errors=True)
    staging.rename(folder)
    return prepared


# --- measuring ---------------------------------------------------------------------------------


@dataclass
class ImportStep:
    source: str
    records: int
    work_records: int
    process: ProcessFigures
    records_per_second: float
    run_counts: dict[str, int]
    issues: dict[str, int]  # by severity
    issue_reasons: list[tuple[str, int]]  # the most frequent, shortened
    works_before: int
    works_after: int
    merged_into_existing: int  # work records that joined a work already there
    expected_merged: int | None = None
    ratio_to_openalex: float | None = None
    openalex_records_per_second: float | None = None


def tables_to_empty(connection: psycopg.Connection) -> list[str]:
    rows = connection.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
    ).fetchall()
    return [name for (name,) in rows if name.startswith(EMPTIED_APPS)]


def empty(connection: psycopg.Connection, tables: Sequence[str]) -> None:
    connection.execute(
        sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(
            sql.SQL(", ").join(map(sql.Identifier, tables))
        )
    )
    connection.execute("CHECKPOINT")


def works_count(connection: psycopg.Connection) -> int:
    return connection.execute("SELECT count(*) FROM publications_work").fetchone()[0]  # type: ignore[index]


def import_step(
    *,
    source: str,
    path: str,
    records: int,
    work_records: int,
    env: dict[str, str],
    connection: psycopg.Connection,
    work_dir: Path,
    label: str,
) -> ImportStep:
    before = works_count(connection)
    command = [
        sys.executable,
        str(REPO_ROOT / "manage.py"),
        "import",
        source,
        path,
        "--sync",
        "--no-progress",
    ]
    log = work_dir / f"{label}.log"
    figures = run_measured(command, env=env, log=log)
    run = connection.execute(
        """
        SELECT id, status, read_count, created_count, updated_count, unchanged_count, failed_count,
               chunks_total
        FROM publications_importrun ORDER BY id DESC LIMIT 1
        """
    ).fetchone()
    if run is None or run[1] != "succeeded":
        raise SystemExit(f"the {label} import did not succeed ({run}); see {log}")
    issues: dict[str, int] = dict(
        connection.execute(
            "SELECT severity, count(*) FROM publications_importissue WHERE run_id = %s GROUP BY 1",
            [run[0]],
        ).fetchall()
    )
    reasons = connection.execute(
        """
        SELECT severity || ': ' || left(regexp_replace(reason, '[0-9]+', 'N', 'g'), 120), count(*) FROM publications_importissue
        WHERE run_id = %s GROUP BY 1 ORDER BY 2 DESC LIMIT 5
        """,
        [run[0]],
    ).fetchall()
    after = works_count(connection)
    return ImportStep(
        source=source,
        records=records,
        work_records=work_records,
        process=figures,
        records_per_second=round(records / figures.seconds, 1),
        run_counts=dict(
            zip(
                ("read", "created", "updated", "unchanged", "failed", "chunks"),
                run[2:],
                strict=True,
            )
        ),
        issues=issues,
        issue_reasons=[(reason, count) for reason, count in reasons],
        works_before=before,
        works_after=after,
        merged_into_existing=work_records - (after - before),
    )


# --- report ------------------------------------------------------------------------------------


@dataclass
class Report:
    measured_at: str
    revision: str
    machine: dict[str, object]
    records: int
    files: SourceFiles
    openalex_corpus: str
    import_settings: dict[str, str]
    openalex: list[ImportStep]  # one per source, imported just before it
    sources: list[ImportStep]
    notes: list[str] = field(default_factory=list)


def report_print(report: Report) -> None:
    machine = report.machine
    say()
    say(f"bzpeer sources benchmark, {report.measured_at}, revision {report.revision}")
    say(f"machine     {machine['cpu']}, {machine['cores']} cores, {machine['memory_gb']} GB RAM")
    say(f"            PostgreSQL {machine['postgresql']}, Python {machine['python']}")
    settings: dict[str, str] = machine["postgresql_settings"]  # type: ignore[assignment]
    say(f"            {', '.join(f'{k}={v}' for k, v in settings.items())}")
    say(
        f"files       {report.records:,} records a source under {report.files.folder}; OpenAlex {report.openalex_corpus}"
    )
    say(f"settings    {', '.join(f'{k}={v}' for k, v in report.import_settings.items())}")
    say()
    header = (
        f"{'source':<9} {'records':>8} {'works':>8} {'chunks':>6} {'seconds':>8} {'rec/s':>8} {'vs OA':>6} "
        f"{'RSS MB':>7} {'tree MB':>8} {'created':>8} {'updated':>8} {'failed':>7} "
        f"{'errors':>7} {'warnings':>8} {'merged':>7} {'expected':>8}"
    )
    say(header)
    say("-" * len(header))
    for openalex, step in zip(report.openalex, report.sources, strict=True):
        for row in (openalex, step):
            ratio = f"{row.ratio_to_openalex:.2f}" if row.ratio_to_openalex is not None else ""
            expected = f"{row.expected_merged:,}" if row.expected_merged is not None else ""
            say(
                f"{row.source:<9} {row.records:>8,} {row.work_records:>8,} "
                f"{row.run_counts.get('chunks', 0):>6,} {row.process.seconds:>8.1f} "
                f"{row.records_per_second:>8,.0f} {ratio:>6} {row.process.peak_rss_mb:>7,.0f} "
                f"{row.process.peak_tree_rss_mb:>8,.0f} {row.run_counts['created']:>8,} "
                f"{row.run_counts['updated']:>8,} {row.run_counts['failed']:>7,} "
                f"{row.issues.get('error', 0):>7,} {row.issues.get('warning', 0):>8,} {row.merged_into_existing if row.source != OPENALEX else '':>7} "
                f"{expected:>8}" + busy_note(row.process.other_work_share)
            )
    say()
    say("works: the work records the file holds; vs OA: records/s over the OpenAlex import's just")
    say("before it (same empty database); merged: work records that joined an OpenAlex work.")
    say("ORCID's warnings are expected, one per shared work: its owner's name is on the OpenAlex")
    say("byline, but that slot belongs to an OpenAlex author id without an ORCID iD.")
    for step in report.sources:
        if step.issue_reasons:
            say(
                f"{step.source} issues: " + "; ".join(f"{n:,} x {r}" for r, n in step.issue_reasons)
            )
    for note in report.notes:
        say(f"note: {note}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], prog="python -m bench.sources_bench"
    )
    parser.add_argument(
        "--records", type=int, default=100_000, help="records a source (default 100000)"
    )
    parser.add_argument("--seed", type=int, default=7, help="OpenAlex corpus seed (default 7)")
    parser.add_argument(
        "--page",
        type=int,
        default=1000,
        help="records a Crossref or arXiv page file (default 1000, the APIs' usual page)",
    )
    parser.add_argument(
        "--bib-per-file", type=int, default=1000, help="entries a .bib file (default 1000)"
    )
    parser.add_argument(
        "--sources",
        default=",".join(SOURCES),
        help=f"comma-separated (default {','.join(SOURCES)})",
    )
    parser.add_argument(
        "--database",
        default="bzpeer_sources_bench",
        help="bench database (default bzpeer_sources_bench)",
    )
    parser.add_argument(
        "--redis-db",
        type=int,
        default=14,
        help="Redis database for the imports' cache and task queue (default 14)",
    )
    smoke.add_argument(parser)
    options = parser.parse_args(argv)
    if options.smoke:
        smoke.apply(
            parser,
            options,
            records=smoke.WORKS,
            page=100,
            bib_per_file=100,
            database=smoke.default_database("sources"),
        )
        smoke.begin(options.database, redis_db=options.redis_db)
    chosen = [s.strip() for s in options.sources.split(",") if s.strip()]
    if unknown := set(chosen) - set(SOURCES):
        parser.error(f"unknown sources: {', '.join(sorted(unknown))}")

    url, env, work_dir = bench_environment(options.database, redis_db=options.redis_db)
    corpus = corpus_prepare(
        works=options.records,
        authors=max(1, options.records // 2),
        seed=options.seed,
        files=1,
        gzipped=False,
    )
    prepared = files_prepare(
        corpus=corpus,
        records=options.records,
        seed=options.seed,
        page=options.page,
        bib_per_file=options.bib_per_file,
    )

    others_before = other_imports_running()
    openalex_steps: list[ImportStep] = []
    source_steps: list[ImportStep] = []
    with psycopg.connect(url, autocommit=True) as connection:
        machine = machine_describe(connection)
        tables = tables_to_empty(connection)
        for source in chosen:
            spec = prepared.files[source]
            empty(connection, tables)
            say(f"{source}: the OpenAlex file first ...")
            openalex = import_step(
                source=OPENALEX,
                path=corpus.path,
                records=corpus.works,
                work_records=corpus.works,
                env=env,
                connection=connection,
                work_dir=work_dir,
                label=f"openalex-before-{source}",
            )
            say(f"{source}: {spec.records:,} records from {spec.path} ...")
            step = import_step(
                source=source,
                path=spec.path,
                records=spec.records,
                work_records=spec.work_records,
                env=env,
                connection=connection,
                work_dir=work_dir,
                label=source,
            )
            step.expected_merged = spec.openalex_works
            step.openalex_records_per_second = openalex.records_per_second
            step.ratio_to_openalex = round(step.records_per_second / openalex.records_per_second, 3)
            openalex_steps.append(openalex)
            source_steps.append(step)
    others = sorted(set(others_before) | set(other_imports_running()))

    report = Report(
        measured_at=datetime.now(UTC).isoformat(timespec="seconds"),
        revision=git_revision(),
        machine=machine,
        records=options.records,
        files=prepared,
        openalex_corpus=corpus.path,
        import_settings={
            n: env.get(n, "default") for n in ("IMPORT_BATCH_SIZE", "IMPORT_CHUNK_LINES")
        },
        openalex=openalex_steps,
        sources=source_steps,
    )
    for step in source_steps:
        if step.run_counts["read"] != step.records:
            report.notes.append(
                f"{step.source}: the run read {step.run_counts['read']:,} of {step.records:,} records"
            )
        if step.run_counts["failed"]:
            report.notes.append(
                f"{step.source}: {step.run_counts['failed']:,} records failed (see its issues)"
            )
        if step.merged_into_existing != step.expected_merged:
            report.notes.append(
                f"{step.source}: {step.merged_into_existing:,} work records joined an existing work, "
                f"{step.expected_merged:,} expected"
            )
    for step in (*openalex_steps, *source_steps):
        if step.process.peak_tree_rss_mb >= MEMORY_BUDGET_MB:
            report.notes.append(f"{step.source}: peak memory over the {MEMORY_BUDGET_MB} MB budget")
    if any(s.process.other_work_share >= BUSY_SHARE for s in (*openalex_steps, *source_steps)):
        report.notes.append(
            "other processes used a share of the CPUs during a step (flagged above): its rate is "
            "low by about that much"
        )
    if others:
        report.notes.append(
            "other imports or benchmarks ran on this machine meanwhile, so these figures are "
            "disturbed: " + "; ".join(others)
        )
    report_print(report)
    (DATA_DIR / "sources-report.json").write_text(json.dumps(asdict(report), indent=2) + "\n")
    say(f"\nwritten to {shown(DATA_DIR / 'sources-report.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
