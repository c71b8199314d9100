"""The sources benchmark's synthetic world (bench/sources_bench.py): its people, titles and
identifiers, and the Crossref and arXiv records they appear in.

Deterministic and free of personal data: names from syllables, DOIs under 10.99999/, arXiv ids
99MM.NNNNN, ORCID iDs with valid check digits in the unused 0000-0009- block.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import orjson

from bench.harness import REPO_ROOT, Corpus
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
