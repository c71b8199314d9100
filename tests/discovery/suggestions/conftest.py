"""The suggestion tests' people and graph: alice holds an approved claim (charlie stays a
member without one; bob is made verified where a test needs him), and her neighbourhood."""

from __future__ import annotations

import numpy as np
import pytest

from discovery.models import ResearcherEmbedding
from discovery.vectors import vector_to_bytes
from researchers.models import Researcher
from tests.factories import TopicFactory
from tests.support.people import client_for

from .builders import cites, claimed, edges_refreshed, unclaimed, work_by


@pytest.fixture
def alice(verified_person):
    """alice holds an approved claim here (charlie stays a member without one)."""
    return verified_person("alice")


@pytest.fixture
def web(alice):
    """alice's neighbourhood: dave two steps away (through xavier, unclaimed), erin on her
    topic, frank citing her four times, gina her coauthor, yann unclaimed two steps away."""
    xavier = unclaimed("Xavier Unclaimed")
    yann = unclaimed("Yann Unclaimed")
    dave = claimed("Dave Twostep")
    erin = claimed("Erin Topical")
    frank = claimed("Frank Citer")
    gina = claimed("Gina Coauthor")
    gnn = TopicFactory(name="Graph neural networks")
    work_by(alice.record, xavier, year=2015)
    work_by(xavier, dave.record, year=2016)
    work_by(xavier, yann, year=2016)
    work_by(alice.record, gina.record, year=2012)
    alice_works = [work_by(alice.record, topics=(gnn,)) for _ in range(2)]
    work_by(erin.record, topics=(gnn,))
    work_by(erin.record, topics=(gnn,))
    for _ in range(4):
        cites(work_by(frank.record), alice_works[0])
    edges_refreshed(alice.record, xavier, yann, dave.record, gina.record)
    return {"dave": dave, "erin": erin, "frank": frank, "gina": gina, "yann": yann}


@pytest.fixture
def alice_client(alice):
    return client_for(alice)


@pytest.fixture
def larger(alice, web):
    """Thirty more claimants two steps from alice, through xavier: more than a page holds; they
    and alice have embeddings, so the closeness in meaning is read too."""
    xavier = Researcher.objects.get(display_name="Xavier Unclaimed")
    records = [claimed(f"Many Person{i}").record for i in range(30)]
    for record in records:
        work_by(xavier, record, year=2017)
    edges_refreshed(xavier, *records)
    rng = np.random.default_rng(1)
    ResearcherEmbedding.objects.bulk_create(
        ResearcherEmbedding(
            researcher=record,
            model_name="test-model",
            works_count=1,
            dimensions=8,
            vector=vector_to_bytes(rng.normal(size=8)),
        )
        for record in [alice.record, *records]
    )
    return records
