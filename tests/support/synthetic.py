"""Synthetic OpenAlex-format works for tests and benchmarks.

Deterministic for a given seed. Authors per work follow a long-tailed distribution like real
corpora (most works have 2-8 authors, a few hundred works per million have hundreds), and
authors are drawn with a skew so some are prolific and most have a handful of works.
No personal data: names are built from syllables, ids are in a range OpenAlex does not use.
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Iterator
from pathlib import Path

import orjson

_SYLLABLES = [
    "an",
    "be",
    "chen",
    "da",
    "el",
    "fa",
    "gu",
    "hi",
    "io",
    "ja",
    "ko",
    "li",
    "mo",
    "na",
    "or",
    "pe",
    "qi",
    "ru",
    "sa",
    "ta",
    "ul",
    "vi",
    "wu",
    "xi",
    "ya",
    "zo",
]
_WORDS = [
    "graph",
    "learning",
    "optical",
    "network",
    "memory",
    "sparse",
    "attention",
    "training",
    "distributed",
    "inference",
    "latency",
    "energy",
    "protein",
    "quantum",
    "compiler",
    "cache",
]
_TYPES = ["article"] * 7 + ["preprint"] * 2 + ["book-chapter"]


def _name(rng: random.Random) -> str:
    def part() -> str:
        return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3))).capitalize()

    return f"{part()} {part()}"


def _authors_count(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.0005:
        return rng.randint(150, 600)  # consortium papers
    if roll < 0.01:
        return rng.randint(20, 60)
    return max(1, min(15, int(rng.lognormvariate(1.55, 0.55))))


def _references(index: int, count: int, seed: int) -> list[str]:
    """`count` works cited by work `index`: mostly earlier works of the corpus, the low ids
    (the old, much cited ones) more often; one in five outside the corpus (a reference to a
    work not held). Drawn from a generator of its own, so the other fields of a corpus do not
    depend on whether it has references."""
    rng = random.Random(seed * 1_000_003 + index)
    chosen: dict[str, None] = {}
    for _ in range(count):
        if index == 0 or rng.random() < 0.2:
            chosen[f"https://openalex.org/W98{rng.randrange(10**8):08d}"] = None
        else:
            chosen[f"https://openalex.org/W99{int(index * rng.random() ** 2):08d}"] = None
    return list(chosen)


def iter_works(
    *,
    works: int,
    authors: int,
    institutions: int = 2000,
    topics: int = 300,
    seed: int = 7,
    references: int = 0,
) -> Iterator[dict]:
    rng = random.Random(seed)
    author_names = {}
    for index in range(works):
        authorships = []
        chosen: set[int] = set()
        for position in range(_authors_count(rng)):
            # Skewed choice: low ids are prolific authors.
            author = int(authors * (rng.random() ** 2.2))
            if author in chosen:
                continue
            chosen.add(author)
            name = author_names.setdefault(author, _name(random.Random(author)))
            institution = author % institutions
            authorships.append(
                {
                    "author_position": "first" if position == 0 else "middle",
                    "author": {
                        "id": f"https://openalex.org/A99{author:08d}",
                        "display_name": name,
                        "orcid": None,
                    },
                    "institutions": [
                        {
                            "id": f"https://openalex.org/I99{institution:06d}",
                            "display_name": f"Institute {institution}",
                            "ror": None,
                            "country_code": "US",
                            "type": "education",
                        }
                    ],
                    "raw_author_name": name,
                    "is_corresponding": position == 0,
                }
            )
        topic = rng.randrange(topics)
        year = rng.randint(1995, 2025)
        words = rng.sample(_WORDS, 6)
        abstract = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(40, 120)))
        inverted: dict[str, list[int]] = {}
        for position, word in enumerate(abstract.split(" ")):
            inverted.setdefault(word, []).append(position)
        cited = int(rng.paretovariate(1.2)) - 1
        yield {
            "id": f"https://openalex.org/W99{index:08d}",
            "doi": f"https://doi.org/10.99999/synthetic.{index}",
            "title": " ".join(words).capitalize(),
            "display_name": " ".join(words).capitalize(),
            "publication_year": year,
            "publication_date": f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            "type": rng.choice(_TYPES),
            "language": "en",
            "primary_location": {
                "source": {
                    "id": f"https://openalex.org/S99{index % 500:06d}",
                    "display_name": f"Journal {index % 500}",
                    "issn_l": None,
                    "type": "journal",
                }
            },
            "authorships": authorships,
            "topics": [
                {
                    "id": f"https://openalex.org/T99{topic:04d}",
                    "display_name": f"Topic {topic}",
                    "score": 0.9,
                    "subfield": {
                        "id": f"https://openalex.org/subfields/99{topic % 40:02d}",
                        "display_name": f"Subfield {topic % 40}",
                    },
                    "field": {
                        "id": f"https://openalex.org/fields/99{topic % 8}",
                        "display_name": f"Field {topic % 8}",
                    },
                    "domain": {
                        "id": "https://openalex.org/domains/9",
                        "display_name": "Synthetic domain",
                    },
                }
            ],
            "cited_by_count": cited,
            "counts_by_year": [{"year": 2024, "cited_by_count": cited // 2}] if cited else [],
            "abstract_inverted_index": inverted,
            **({"referenced_works": _references(index, references, seed)} if references else {}),
        }


def write_works_snapshot(
    folder: Path,
    *,
    works: int,
    authors: int | None = None,
    files: int = 1,
    gzipped: bool = False,
    seed: int = 7,
    references: int = 0,
) -> list[Path]:
    """Write works as snapshot part files under folder/works/updated_date=2026-01-01/."""
    target = folder / "works" / "updated_date=2026-01-01"
    target.mkdir(parents=True, exist_ok=True)
    paths = [target / (f"part_{i:03d}.gz" if gzipped else f"part_{i:03d}") for i in range(files)]
    handles = [gzip.open(p, "wb", compresslevel=1) if gzipped else open(p, "wb") for p in paths]  # noqa: SIM115
    try:
        for index, work in enumerate(
            iter_works(
                works=works,
                authors=authors or max(1, works // 2),
                seed=seed,
                references=references,
            )
        ):
            handles[index % files].write(orjson.dumps(work) + b"\n")
    finally:
        for handle in handles:
            handle.close()
    return paths
