"""The sources benchmark's ORCID records and BibTeX entries, and the cached files of all four
sources (bench-data/sources-r{N}-s{seed}-p{page}-b{bib}/), drawn from bench/sources_world.py.
"""

from __future__ import annotations

import json
import random
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson

from bench.harness import DATA_DIR, Corpus, say, shown
from bench.sources_world import (
    _CATEGORIES,
    _COUNTRIES,
    _MONTH_MACROS,
    _ROLES,
    DOI_PREFIX,
    SOURCES,
    OpenAlexWork,
    _abstract,
    _coauthors,
    _split,
    _title,
    _word,
    arxiv_id,
    openalex_overlap,
    orcid_id,
    overlap_index,
    overlaps,
    person,
    write_arxiv,
    write_crossref,
)
from tests.support.synthetic import _WORDS

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


def _orcid_work_groups(
    rng: random.Random, orcid: str, index: int, records: int, overlap: dict[int, OpenAlexWork]
) -> tuple[list[dict[str, Any]], str, str]:
    """The record's work groups and its person's (given, family) name: for 30%, the first
    author of an OpenAlex work, who lists that work first."""
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
    return groups, given, family


def _orcid_affiliation(
    rng: random.Random,
    orcid: str,
    kind: str,
    put_code: int,
    role: str,
    begin: int,
    end: int | None,
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


def _orcid_fundings(rng: random.Random, index: int, start: int) -> dict[str, Any]:
    return {
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


def _orcid_activities(
    rng: random.Random, orcid: str, index: int, groups: list[dict[str, Any]]
) -> dict[str, Any]:
    """The activities summary: an employment and an education, for 30% a distinction, for 30%
    a funding, and the work groups."""
    start = rng.randint(1990, 2020)
    activities: dict[str, Any] = {
        "employments": _orcid_affiliation(
            rng, orcid, "employment", index * 10 + 5, rng.choice(_ROLES), start + 5, None
        ),
        "educations": _orcid_affiliation(
            rng, orcid, "education", index * 10 + 6, "PhD", start, start + 5
        ),
        "works": {"group": groups},
    }
    if rng.random() < 0.3:
        activities["distinctions"] = _orcid_affiliation(
            rng, orcid, "distinction", index * 10 + 7, f"{_word(rng, 2)} Prize", start + 8, None
        )
    if rng.random() < 0.3:
        activities["fundings"] = _orcid_fundings(rng, index, start)
    return activities


def _orcid_person(rng: random.Random, orcid: str, given: str, family: str) -> dict[str, Any]:
    return {
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
    }


def orcid_record(
    index: int, records: int, overlap: dict[int, OpenAlexWork]
) -> tuple[dict[str, Any], int]:
    """The record of person `index` (or, for 30%, of the first author of an OpenAlex work, who
    lists that work first): returns (answer, number of work groups). Its parts draw from one
    generator, in this order: works, activities, person."""
    rng = random.Random(f"orcid:{index}")
    orcid = orcid_id(index)
    groups, given, family = _orcid_work_groups(rng, orcid, index, records, overlap)
    activities = _orcid_activities(rng, orcid, index, groups)
    answer = {
        "orcid-identifier": {
            "uri": f"https://orcid.org/{orcid}",
            "path": orcid,
            "host": "orcid.org",
        },
        "person": _orcid_person(rng, orcid, given, family),
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
