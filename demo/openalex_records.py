"""Turning the demo tables into OpenAlex records (works, authors, institutions, sources).

Everything is derived deterministically from the tables: ids are numbered in table order, and
the same tables always give the same records.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from demo_tables import SNAPSHOT_DATE, SNAPSHOT_YEAR, Tables, Work

OPENALEX = "https://openalex.org/"
PRIMARY_TOPIC_SCORE = 1.0
SECONDARY_TOPIC_SCORE = 0.5
AUTHOR_SPEC = re.compile(r"^(?P<name>[^\[\]]+?)(?:\s*\[(?P<institutions>[^\[\]]+)\])?$")


@dataclass(frozen=True)
class Byline:
    raw_name: str
    display_name: str
    institution_keys: tuple[str, ...]


def _parse_author(spec: str, name_aliases: dict[str, str]) -> Byline:
    match = AUTHOR_SPEC.match(spec)
    if match is None:
        raise ValueError(f"unreadable author entry: {spec!r}")
    raw_name = match["name"].strip()
    keys = tuple(key.strip() for key in (match["institutions"] or "").split(",") if key.strip())
    return Byline(raw_name, name_aliases.get(raw_name, raw_name), keys)


def _numbered(prefix: str, number: int) -> str:
    return f"{OPENALEX}{prefix}{9900000000 + number}"


def _inverted_index(text: str) -> dict[str, list[int]]:
    # OpenAlex splits on single spaces and keeps punctuation on the tokens.
    index: dict[str, list[int]] = defaultdict(list)
    for position, token in enumerate(text.split(" ")):
        index[token].append(position)
    return dict(index)


def rebuild_abstract(index: dict[str, list[int]]) -> str:
    """The text an inverted index was made from (the check that abstracts round-trip)."""
    tokens: dict[int, str] = {}
    for token, positions in index.items():
        for position in positions:
            tokens[position] = token
    return " ".join(tokens[position] for position in range(len(tokens)))


def _citations_by_year(total: int, first_year: int) -> dict[int, int]:
    """Spread `total` citations over first_year..SNAPSHOT_YEAR, growing linearly."""
    years = list(range(first_year, SNAPSHOT_YEAR + 1))
    weights = [Fraction(index + 1) for index in range(len(years))]
    exact = [total * weight / sum(weights) for weight in weights]
    counts = [int(value) for value in exact]
    by_largest_remainder = sorted(
        range(len(years)), key=lambda index: (-(exact[index] - counts[index]), -years[index])
    )
    for index in by_largest_remainder[: total - sum(counts)]:
        counts[index] += 1
    return {year: count for year, count in zip(years, counts, strict=True) if count}


def _h_index(citation_counts: list[int]) -> int:
    ranked = sorted(citation_counts, reverse=True)
    return sum(1 for rank, count in enumerate(ranked, start=1) if count >= rank)


class SnapshotBuilder:
    """The records of one snapshot; the ids are fixed when the builder is made."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.institutions = {inst.key: inst for inst in tables.institutions}
        self.institution_ids = {
            inst.key: _numbered("I", number)
            for number, inst in enumerate(tables.institutions, start=1)
        }
        self.sources = {source.key: source for source in tables.sources}
        self.source_ids: dict[str, str] = {}
        synthetic_number = 0
        for source in tables.sources:
            if source.openalex_id:
                self.source_ids[source.key] = source.openalex_id
            else:
                synthetic_number += 1
                self.source_ids[source.key] = _numbered("S", synthetic_number)
        self.people = {person.display_name: person for person in tables.people}
        self.author_ids = {
            person.display_name: _numbered("A", number)
            for number, person in enumerate(tables.people, start=1)
        }
        self.bylines = [
            tuple(_parse_author(spec, tables.name_aliases) for spec in work.authors)
            for work in tables.works
        ]
        for byline in self.bylines:
            for author in byline:
                if author.display_name not in self.author_ids:
                    self.author_ids[author.display_name] = _numbered("A", len(self.author_ids) + 1)

    # Dehydrated objects, as OpenAlex nests them inside other records.

    def institution_stub(self, key: str) -> dict[str, Any]:
        inst = self.institutions[key]
        institution_id = self.institution_ids[key]
        return {
            "id": institution_id,
            "display_name": inst.display_name,
            "ror": inst.ror,
            "country_code": inst.country_code,
            "type": inst.type,
            "lineage": [institution_id],
        }

    def source_stub(self, key: str) -> dict[str, Any]:
        source = self.sources[key]
        return {
            "id": self.source_ids[key],
            "display_name": source.display_name,
            "issn_l": source.issn_l,
            "issn": [source.issn_l] if source.issn_l else None,
            "type": source.type,
        }

    def topic(self, category: str, score: float) -> dict[str, Any]:
        taxonomy = self.tables.taxonomy
        name, subfield_id = taxonomy.categories[category]
        subfield_name, field_id = taxonomy.subfields[subfield_id]
        field_name, domain_id = taxonomy.fields[field_id]
        return {
            "id": f"arxiv:{category}",
            "display_name": name,
            "score": score,
            "subfield": {"id": f"{OPENALEX}subfields/{subfield_id}", "display_name": subfield_name},
            "field": {"id": f"{OPENALEX}fields/{field_id}", "display_name": field_name},
            "domain": {
                "id": f"{OPENALEX}domains/{domain_id}",
                "display_name": taxonomy.domains[domain_id],
            },
        }

    # Entities.

    def locations(self, work: Work) -> list[dict[str, Any]]:
        locations = []
        if work.venue:
            is_oa = work.landing_page_url is not None
            locations.append(
                {
                    "source": self.source_stub(work.venue),
                    "landing_page_url": work.landing_page_url,
                    "pdf_url": None,
                    "is_oa": is_oa,
                    # Every MDPI article is published under CC BY.
                    "license": "cc-by" if work.venue == "sensors" else None,
                    "version": "publishedVersion",
                    "is_accepted": True,
                    "is_published": True,
                }
            )
        if work.arxiv_id:
            locations.append(
                {
                    "source": self.source_stub("arxiv"),
                    "landing_page_url": f"https://arxiv.org/abs/{work.arxiv_id}",
                    "pdf_url": f"https://arxiv.org/pdf/{work.arxiv_id}",
                    "is_oa": True,
                    "license": None,
                    "version": "submittedVersion",
                    "is_accepted": False,
                    "is_published": False,
                }
            )
        if not locations and work.landing_page_url:
            locations.append(
                {
                    "source": None,
                    "landing_page_url": work.landing_page_url,
                    "pdf_url": None,
                    "is_oa": True,
                    "license": None,
                    "version": "publishedVersion",
                    "is_accepted": True,
                    "is_published": True,
                }
            )
        return locations

    def work_record(self, number: int, work: Work, byline: tuple[Byline, ...]) -> dict[str, Any]:
        work_id = _numbered("W", number)
        doi = work.doi
        if doi is None and work.arxiv_id and not work.venue:
            # arXiv registers 10.48550/arXiv.<id> for every paper; OpenAlex lowercases DOIs.
            doi = f"https://doi.org/10.48550/arxiv.{work.arxiv_id}"
        ids: dict[str, str] = {"openalex": work_id}
        if doi:
            ids["doi"] = doi
        if work.arxiv_id:
            ids["arxiv"] = work.arxiv_id
        locations = self.locations(work)
        best_oa = next((location for location in locations if location["is_oa"]), None)
        oa_status = "closed"
        if best_oa is not None:
            oa_status = "green" if best_oa["version"] == "submittedVersion" else "gold"
        authorships = []
        for position, author in enumerate(byline):
            if position == 0:
                author_position = "first"
            elif position == len(byline) - 1:
                author_position = "last"
            else:
                author_position = "middle"
            institutions = [self.institution_stub(key) for key in author.institution_keys]
            authorships.append(
                {
                    "author_position": author_position,
                    "author": {
                        "id": self.author_ids[author.display_name],
                        "display_name": author.display_name,
                        "orcid": None,
                    },
                    "institutions": institutions,
                    "countries": sorted({inst["country_code"] for inst in institutions}),
                    "raw_author_name": author.raw_name,
                    "is_corresponding": False,
                    "raw_affiliation_strings": [inst["display_name"] for inst in institutions],
                }
            )
        topics = [
            self.topic(category, PRIMARY_TOPIC_SCORE if rank == 0 else SECONDARY_TOPIC_SCORE)
            for rank, category in enumerate(work.topics)
        ]
        citations = _citations_by_year(work.cited_by_count, work.year)
        return {
            "id": work_id,
            "doi": doi,
            "ids": ids,
            "title": work.title,
            "display_name": work.title,
            "publication_year": work.year,
            "publication_date": work.date,
            "type": work.type,
            "language": work.language,
            "primary_location": locations[0] if locations else None,
            "locations": locations,
            "locations_count": len(locations),
            "best_oa_location": best_oa,
            "open_access": {
                "is_oa": best_oa is not None,
                "oa_status": oa_status,
                "oa_url": best_oa["landing_page_url"] if best_oa else None,
            },
            "authorships": authorships,
            "primary_topic": topics[0] if topics else None,
            "topics": topics,
            "cited_by_count": work.cited_by_count,
            "counts_by_year": [
                {"year": year, "cited_by_count": count}
                for year, count in sorted(citations.items(), reverse=True)
            ],
            "abstract_inverted_index": _inverted_index(work.abstract) if work.abstract else None,
            "is_retracted": False,
            "is_paratext": False,
            "updated_date": f"{SNAPSHOT_DATE}T00:00:00",
            "created_date": SNAPSHOT_DATE,
        }

    def author_records(self, works: list[dict[str, Any]]) -> list[dict[str, Any]]:
        works_by_author: dict[str, list[dict[str, Any]]] = defaultdict(list)
        raw_names: dict[str, set[str]] = defaultdict(set)
        byline_years: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
        latest_byline: dict[str, tuple[int, list[str]]] = {}
        key_by_institution_id = {value: key for key, value in self.institution_ids.items()}
        for work in works:
            for authorship in work["authorships"]:
                name = authorship["author"]["display_name"]
                works_by_author[name].append(work)
                raw_names[name].add(authorship["raw_author_name"])
                keys = [key_by_institution_id[inst["id"]] for inst in authorship["institutions"]]
                for key in keys:
                    byline_years[name][key].add(work["publication_year"])
                if keys and work["publication_year"] >= latest_byline.get(name, (0, []))[0]:
                    latest_byline[name] = (work["publication_year"], keys)

        records = []
        for name, author_id in self.author_ids.items():
            person = self.people.get(name)
            alternatives = set(raw_names[name]) - {name}
            if person:
                alternatives |= set(person.alternatives)
            if person and person.no_affiliations:
                years_by_institution: dict[str, set[int]] = {}
                last_known: list[str] = []
            elif person and person.timeline:
                years_by_institution = defaultdict(set)
                for key, first, last in person.timeline:
                    years_by_institution[key] |= set(range(first, last + 1))
                last_known = list(person.last_known or ())
            else:
                years_by_institution = byline_years[name]
                last_known = list(latest_byline.get(name, (0, []))[1])
            affiliations = sorted(
                (
                    {
                        "institution": self.institution_stub(key),
                        "years": sorted(years, reverse=True),
                    }
                    for key, years in years_by_institution.items()
                ),
                key=lambda item: (-item["years"][0], -item["years"][-1], item["institution"]["id"]),
            )
            own_works = works_by_author[name]
            citations = [work["cited_by_count"] for work in own_works]
            by_year: dict[int, dict[str, int]] = defaultdict(
                lambda: {"works_count": 0, "cited_by_count": 0}
            )
            for work in own_works:
                by_year[work["publication_year"]]["works_count"] += 1
                for entry in work["counts_by_year"]:
                    by_year[entry["year"]]["cited_by_count"] += entry["cited_by_count"]
            records.append(
                {
                    "id": author_id,
                    "display_name": name,
                    "display_name_alternatives": sorted(alternatives),
                    "orcid": None,
                    "ids": {"openalex": author_id},
                    "works_count": len(own_works),
                    "cited_by_count": sum(citations),
                    "summary_stats": {
                        "h_index": _h_index(citations),
                        "i10_index": sum(1 for count in citations if count >= 10),
                    },
                    "counts_by_year": [
                        {"year": year, **counts}
                        for year, counts in sorted(by_year.items(), reverse=True)
                    ],
                    "last_known_institutions": [self.institution_stub(key) for key in last_known],
                    "affiliations": affiliations,
                    "updated_date": f"{SNAPSHOT_DATE}T00:00:00",
                    "created_date": SNAPSHOT_DATE,
                }
            )
        return records

    def institution_records(self, works: list[dict[str, Any]]) -> list[dict[str, Any]]:
        work_ids: dict[str, set[str]] = defaultdict(set)
        citations: dict[str, int] = {}
        for work in works:
            citations[work["id"]] = work["cited_by_count"]
            for authorship in work["authorships"]:
                for inst in authorship["institutions"]:
                    work_ids[inst["id"]].add(work["id"])
        records = []
        for inst in self.tables.institutions:
            institution_id = self.institution_ids[inst.key]
            ids = {"openalex": institution_id}
            if inst.ror:
                ids["ror"] = inst.ror
            records.append(
                {
                    "id": institution_id,
                    "ror": inst.ror,
                    "ids": ids,
                    "display_name": inst.display_name,
                    "display_name_alternatives": list(inst.alternatives),
                    "country_code": inst.country_code,
                    "type": inst.type,
                    "homepage_url": inst.homepage_url,
                    "lineage": [institution_id],
                    "works_count": len(work_ids[institution_id]),
                    "cited_by_count": sum(
                        citations[work_id] for work_id in work_ids[institution_id]
                    ),
                    "updated_date": f"{SNAPSHOT_DATE}T00:00:00",
                    "created_date": SNAPSHOT_DATE,
                }
            )
        return records

    def source_records(self, works: list[dict[str, Any]]) -> list[dict[str, Any]]:
        work_ids: dict[str, set[str]] = defaultdict(set)
        citations: dict[str, int] = {}
        for work in works:
            citations[work["id"]] = work["cited_by_count"]
            for location in work["locations"]:
                if location["source"]:
                    work_ids[location["source"]["id"]].add(work["id"])
        records = []
        for source in self.tables.sources:
            source_id = self.source_ids[source.key]
            ids: dict[str, Any] = {"openalex": source_id}
            if source.issn_l:
                ids["issn_l"] = source.issn_l
                ids["issn"] = [source.issn_l]
            records.append(
                {
                    "id": source_id,
                    "ids": ids,
                    "display_name": source.display_name,
                    "abbreviated_title": source.abbreviated_title,
                    "alternate_titles": list(source.alternate_titles),
                    "issn_l": source.issn_l,
                    "issn": [source.issn_l] if source.issn_l else None,
                    "type": source.type,
                    "homepage_url": source.homepage_url,
                    "works_count": len(work_ids[source_id]),
                    "cited_by_count": sum(citations[work_id] for work_id in work_ids[source_id]),
                    "updated_date": f"{SNAPSHOT_DATE}T00:00:00",
                    "created_date": SNAPSHOT_DATE,
                }
            )
        return records

    def build(self) -> dict[str, list[dict[str, Any]]]:
        works = [
            self.work_record(number, work, byline)
            for number, (work, byline) in enumerate(
                zip(self.tables.works, self.bylines, strict=True), start=1
            )
        ]
        return {
            "works": works,
            "authors": self.author_records(works),
            "institutions": self.institution_records(works),
            "sources": self.source_records(works),
        }
