"""Fixtures of the publications tests: the hand-built corpus of the novelty tests
(test_novelty.py, test_novelty_pages.py)."""

from __future__ import annotations

import pytest

from publications.models import TopicLevel
from tests.factories import SourceFactory, TopicFactory, WorkTopicFactory

from .novelty_corpus import novelty_work


@pytest.fixture
def corpus():
    """Five journals A to E.

    History (no topic needed, they are only the past):
      P0 (2010) cites D, E        pair DE: old, but outside the 2017-2019 window
      P1 (2018) cites A, B, C     pairs AB, AC, BC
      P2 (2019) cites A, B, D     pairs AB, AD, BD
      P3 (2019) cites C, E        pair CE
    Co-citation counts in the window of 2020 (2017-2019), cc(x, y) = works citing both:
      AB 2 (P1, P2), AC 1, BC 1, AD 1, BD 1, CE 1 (DE 0: P0 is before the window)
    Profiles (vectors over the other journals):
      A = (B 2, C 1, D 1)  |A| = sqrt 6       B = (A 2, C 1, D 1)  |B| = sqrt 6
      C = (A 1, B 1, E 1)  |C| = sqrt 3       D = (A 1, B 1)       |D| = sqrt 2
      E = (C 1)            |E| = 1
    The works of 2020, all in the field "Computer science" (topic > subfield > field):
      F1 cites A, B, C, D, E: 10 pairs; old: AB AC BC AD BD CE and DE (P0); new: AE, BE, CD
         AE: A.E = 1 (through C), cos = 1/(sqrt6 * 1) -> distance 1 - 1/sqrt6 = 0.591752
         BE: the same as AE                                        -> 0.591752
         CD: C.D = 1 + 1 (A, B), cos = 2/(sqrt3 sqrt2) = 2/sqrt6   -> 1 - 2/sqrt6 = 0.183503
         score = 3 - 4/sqrt6 = 1.367007
      F2 cites A, A, B, C, D: 5 references, 4 journals, 6 pairs; new: CD (F1's, the same
         year: not before) -> score = 1 - 2/sqrt6 = 0.183503
      F3 cites A, A, B, B, C: 3 journals, pairs AB AC BC all old -> score 0
      F4 cites A, B, E: 3 references, fewer than 5 -> no percentile (few references)
    Percentiles (the share of the other works of the baseline scoring lower), baseline
    {F1, F2, F3}: F3 0/2 = 0, F2 1/2 = 50, F1 2/2 = 100.
    Works before 2020 citing two journals or more: P0, P1, P2, P3 = 4.
    """
    journals = {name: SourceFactory(name=f"Journal {name}") for name in "ABCDE"}
    a, b, c, d, e = journals.values()
    field = TopicFactory(name="Computer science", level=TopicLevel.FIELD)
    subfield = TopicFactory(name="Artificial intelligence", level=TopicLevel.SUBFIELD, parent=field)
    topic = TopicFactory(name="Neural networks", parent=subfield)
    other_field = TopicFactory(name="Medicine", level=TopicLevel.FIELD)
    works = {
        "P0": novelty_work(2010, d, e),
        "P1": novelty_work(2018, a, b, c),
        "P2": novelty_work(2019, a, b, d),
        "P3": novelty_work(2019, c, e),
        "F1": novelty_work(2020, a, b, c, d, e, topic=topic),
        "F2": novelty_work(2020, a, a, b, c, d, topic=topic),
        "F3": novelty_work(2020, a, a, b, b, c, topic=topic),
        "F4": novelty_work(2020, a, b, e, topic=topic),
    }
    # F2's second topic, weaker, is in another field: the primary topic decides.
    WorkTopicFactory(work=works["F2"], topic=other_field, score=0.2)
    return {"journals": journals, "works": works, "field": field}
