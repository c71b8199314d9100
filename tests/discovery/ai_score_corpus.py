"""A synthetic corpus for the AI Score's tests, with a planted signal: a work's citations are
driven by its team size, its venue's quality and its authors' quality, plus noise. A venue's and
an author's quality show in their earlier works' citations, which is what the model may read;
the qualities themselves are never stored. Deterministic for a seed. No personal data."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from discovery.models import WorkEmbedding
from discovery.vectors import vector_to_bytes
from publications.models import Authorship, Source, Topic, TopicLevel, Work, WorkTopic
from researchers.models import Researcher

FIRST_YEAR = 2012
LAST_YEAR = 2025
# The corpus's "now": works up to 2022 have three complete years of citations (2022 + 3 <= 2025).
AS_OF_YEAR = 2025
EMBEDDING_DIMENSIONS = 16
BATCH = 500  # rows per INSERT: PostgreSQL takes at most 65535 parameters a statement


@dataclass
class Planted:
    works: list[Work] = field(default_factory=list)
    latent: dict[int, float] = field(default_factory=dict)  # work id -> planted log-rate
    researchers: list[Researcher] = field(default_factory=list)
    venues: list[Source] = field(default_factory=list)
    topics: list[Topic] = field(default_factory=list)


def _counts(rng: np.random.Generator, year: int, rate: float) -> dict[str, int]:
    """Citations per year from the work's year to LAST_YEAR, most of them in years 1-3."""
    shares = np.array([0.2, 0.35, 0.45, 0.3, 0.25, 0.2, 0.15, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1])
    counts = {}
    for offset, year_counted in enumerate(range(year, LAST_YEAR + 1)):
        n = int(rng.poisson(rate * shares[min(offset, shares.size - 1)]))
        if n:
            counts[str(year_counted)] = n
    return counts


def _topics_create(prefix: str) -> list[Topic]:
    """Two fields and six topics under them, alternately."""
    fields = [
        Topic.objects.create(
            external_id=f"{prefix}-fields/{i}", name=f"Field {i}", level=TopicLevel.FIELD
        )
        for i in range(2)
    ]
    return [
        Topic.objects.create(
            external_id=f"{prefix}-T{i}",
            name=f"Topic {i}",
            level=TopicLevel.TOPIC,
            parent=fields[i % 2],
        )
        for i in range(6)
    ]


def _links_write(planted: Planted, rows: list[tuple], rng: np.random.Generator) -> None:
    """Each work's authorships, topic and a random embedding (drawn in work order, after the
    works' citations, so a seed gives the same corpus)."""
    authorships = []
    work_topics = []
    embeddings = []
    for work, (_, _, _, _, authors, topic, latent) in zip(planted.works, rows, strict=True):
        planted.latent[work.pk] = float(latent)
        for position, author in enumerate(authors, start=1):
            researcher = planted.researchers[int(author)]
            authorships.append(
                Authorship(
                    work=work,
                    researcher=researcher,
                    position=position,
                    raw_name=researcher.display_name,
                    work_created_at=work.created_at,
                )
            )
        work_topics.append(
            WorkTopic(
                work=work, topic=planted.topics[topic], score=0.9, work_created_at=work.created_at
            )
        )
        embeddings.append(
            WorkEmbedding(
                work=work,
                model_name="synthetic",
                text_hash=work.pk,
                dimensions=EMBEDDING_DIMENSIONS,
                vector=vector_to_bytes(rng.normal(size=EMBEDDING_DIMENSIONS)),
            )
        )
    Authorship.objects.bulk_create(authorships, batch_size=BATCH)
    WorkTopic.objects.bulk_create(work_topics, batch_size=BATCH)
    WorkEmbedding.objects.bulk_create(embeddings, batch_size=BATCH)


def build(
    *,
    works: int = 2000,
    researchers: int = 300,
    venues: int = 25,
    seed: int = 1,
    signal: bool = True,
    prefix: str = "syn",
) -> Planted:
    """`works` works over FIRST_YEAR..LAST_YEAR, bulk-written. With signal=False citations are
    pure noise (the same distribution, unrelated to any feature)."""
    rng = np.random.default_rng(seed)
    planted = Planted()
    planted.topics = _topics_create(prefix)
    planted.venues = Source.objects.bulk_create(
        [Source(openalex_id=f"{prefix}-S{i}", name=f"Venue {i}") for i in range(venues)],
        batch_size=BATCH,
    )
    venue_quality = rng.normal(0, 0.8, venues)
    planted.researchers = Researcher.objects.bulk_create(
        [
            Researcher(slug=f"{prefix}-author-{i}", display_name=f"Author Sample{i}")
            for i in range(researchers)
        ],
        batch_size=BATCH,
    )
    author_quality = rng.normal(0, 0.6, researchers)
    # Prolific authors: a skewed draw, so records differ in length.
    author_weights = rng.pareto(1.5, researchers) + 1
    author_weights /= author_weights.sum()

    rows = []
    for i in range(works):
        year = int(rng.integers(FIRST_YEAR, LAST_YEAR + 1))
        venue = int(rng.integers(venues))
        team = int(rng.integers(1, 9))
        authors = rng.choice(researchers, size=min(team, 4), replace=False, p=author_weights)
        topic = int(rng.integers(len(planted.topics)))
        latent = 0.45 * np.log(team) + venue_quality[venue] + author_quality[authors].mean()
        latent += rng.normal(0, 0.4)
        rows.append((i, year, venue, team, authors, topic, latent))
    if not signal:
        latents = np.array([row[6] for row in rows])
        rng.shuffle(latents)
        rows = [(*row[:6], latents[k]) for k, row in enumerate(rows)]

    work_objects = [
        Work(
            openalex_id=f"{prefix}-W{i}",
            title=f"Synthetic study {i}",
            publication_year=year,
            source=planted.venues[venue],
            authors_count=team,
            counts_by_year=(counts := _counts(rng, year, float(np.exp(1.2 + latent)))),
            cited_by_count=sum(counts.values()),
        )
        for i, year, venue, team, _, _, latent in rows
    ]
    planted.works = Work.objects.bulk_create(work_objects, batch_size=BATCH)
    _links_write(planted, rows, rng)
    return planted
