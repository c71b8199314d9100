"""Related works (issue 25, item 4) on a corpus small enough to work out by hand.

The corpus: seven works cited or citing (A, B, C, D cited; P, Q, R, S citing) and one alone (X).

    P cites A, B, C        Q cites A, B        R cites A, D        S cites P, Q

Degrees (cited by + references): A 3, B 2, C 1, D 1, P 3+1 = 4, Q 2+1 = 3, R 2, S 2.
Co-citation (works citing both): A-B 2 (P, Q); A-C 1 (P); B-C 1 (P); A-D 1 (R); P-Q 1 (S).
Coupling (references both cite): P-Q 2 (A, B); P-R 1 (A); Q-R 1 (A).
Score = shared links / sqrt(degree x degree):
    A-B 2/sqrt(6) = 0.8165   A-C 1/sqrt(3) = 0.5774   A-D 1/sqrt(3) = 0.5774
    B-C 1/sqrt(2) = 0.7071   P-Q (1+2)/sqrt(12) = 0.8660
    P-R 1/sqrt(8) = 0.3536   Q-R 1/sqrt(6) = 0.4082
Lists (ties: the larger raw count, then the lower id; A-C and A-D tie, C is older):
    A: B, C, D    B: A, C    C: B, A    D: A
    P: Q, R       Q: P, R    R: Q, P    S, X: none
"""

from __future__ import annotations

import math

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ingest.writer.citations import citations_move
from publications.models import (
    Citation,
    MergedWork,
    PendingRelatedWorks,
    RelatedWork,
    Work,
)
from publications.services import (
    related_works_compute_all,
    related_works_drain,
    related_works_mark_pending,
)

pytestmark = pytest.mark.django_db


def _cite(citing: Work, *cited: Work) -> None:
    Citation.objects.bulk_create([Citation(citing=citing, cited=work) for work in cited])


@pytest.fixture
def corpus() -> dict[str, Work]:
    works = {name: Work.objects.create(title=f"Work {name}") for name in "ABCDPQRSX"}
    _cite(works["P"], works["A"], works["B"], works["C"])
    _cite(works["Q"], works["A"], works["B"])
    _cite(works["R"], works["A"], works["D"])
    _cite(works["S"], works["P"], works["Q"])
    return works


def _lists(works: dict[str, Work]) -> dict[str, list[tuple[str, int, int, float]]]:
    """Each work's list as (related, cocitations, shared references, score), in rank order."""
    name_of = {work.pk: name for name, work in works.items()}
    lists: dict[str, list[tuple[str, int, int, float]]] = {name: [] for name in works}
    for row in RelatedWork.objects.order_by("work_id", "rank"):
        lists[name_of[row.work_id]].append(
            (name_of[row.related_id], row.cocitations, row.shared_references, row.score)
        )
    return lists


def _names(lists: dict[str, list[tuple[str, int, int, float]]]) -> dict[str, str]:
    return {name: "".join(row[0] for row in rows) for name, rows in lists.items()}


def test_the_full_computation_gives_the_lists_worked_out_by_hand(corpus):
    result = related_works_compute_all(range_size=3)

    lists = _lists(corpus)
    assert _names(lists) == {
        "A": "BCD",
        "B": "AC",
        "C": "BA",
        "D": "A",
        "P": "QR",
        "Q": "PR",
        "R": "QP",
        "S": "",
        "X": "",
    }
    assert lists["A"][0] == ("B", 2, 0, pytest.approx(2 / math.sqrt(6)))
    assert lists["A"][1] == ("C", 1, 0, pytest.approx(1 / math.sqrt(3)))
    assert lists["B"][1] == ("C", 1, 0, pytest.approx(1 / math.sqrt(2)))
    assert lists["P"][0] == ("Q", 1, 2, pytest.approx(3 / math.sqrt(12)))
    assert lists["P"][1] == ("R", 0, 1, pytest.approx(1 / math.sqrt(8)))
    assert lists["R"] == [
        ("Q", 0, 1, pytest.approx(1 / math.sqrt(6))),
        ("P", 0, 1, pytest.approx(1 / math.sqrt(8))),
    ]
    assert result.rows == 3 + 2 + 2 + 1 + 2 + 2 + 2
    assert RelatedWork.objects.filter(work=corpus["A"]).values_list("rank", flat=True).count() == 3


def test_each_related_work_says_why_in_words(corpus):
    related_works_compute_all()

    reasons = {(row.work_id, row.related_id): row.reason for row in RelatedWork.objects.all()}
    assert reasons[corpus["A"].pk, corpus["B"].pk] == "cited together by 2 works"
    assert reasons[corpus["A"].pk, corpus["D"].pk] == "cited together by 1 work"
    assert reasons[corpus["R"].pk, corpus["P"].pk] == "shares 1 reference"
    assert (
        reasons[corpus["P"].pk, corpus["Q"].pk] == "cited together by 1 work, shares 2 references"
    )


def test_a_new_citing_work_updates_the_lists_it_touches_as_a_full_computation_would(corpus):
    """T arrives citing B and D. New degrees: B 3, D 2, T 2. New pairs: B-D co-cited 1 (T);
    T couples with P (B), Q (B), R (D), 1 each. Scores now:
        A-B 2/sqrt(9) = 0.6667   A-C 1/sqrt(3) = 0.5774   A-D 1/sqrt(6) = 0.4082
        B-C 1/sqrt(3) = 0.5774   B-D 1/sqrt(6) = 0.4082
        T-P 1/sqrt(8) = 0.3536   T-Q 1/sqrt(6) = 0.4082   T-R 1/sqrt(4) = 0.5
        (P-Q 0.8660, P-R 0.3536, Q-R 0.4082 as before)
    Lists: A: B C D; B: A C D; C: A B (a tie, A is older); D: A B (a tie);
           P: Q R T (R-T tie, R older); Q: P R T; R: T Q P; T: R Q P."""
    related_works_compute_all()
    corpus["T"] = Work.objects.create(title="Work T")
    _cite(corpus["T"], corpus["B"], corpus["D"])
    # What the writer records in the batch that inserts the citations (both ends).
    related_works_mark_pending(work_ids=[corpus["T"].pk, corpus["B"].pk, corpus["D"].pk])

    assert related_works_drain() == 3

    expected = {
        "A": "BCD",
        "B": "ACD",
        "C": "AB",
        "D": "AB",
        "P": "QRT",
        "Q": "PRT",
        "R": "TQP",
        "S": "",
        "T": "RQP",
        "X": "",
    }
    incremental = _lists(corpus)
    assert _names(incremental) == expected
    assert incremental["A"][0] == ("B", 2, 0, pytest.approx(2 / 3))
    assert incremental["T"][0] == ("R", 0, 1, pytest.approx(0.5))
    assert not PendingRelatedWorks.objects.exists()
    # The full computation agrees, row for row.
    related_works_compute_all()
    assert _lists(corpus) == incremental


def test_the_writer_queues_both_ends_of_the_citations_it_inserts(corpus):
    from ingest.writer.citations import citations_resolve_arrived

    late = Work.objects.create(title="Late", openalex_id="W4242")
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO publications_unresolvedreference (citing_id, identifier)"
            " VALUES (%s, 'openalex:W4242')",
            [corpus["X"].pk],
        )
        citations_resolve_arrived(cursor, [late.pk])

    assert Citation.objects.filter(citing=corpus["X"], cited=late).exists()
    assert list(PendingRelatedWorks.objects.values_list("work_ids", flat=True)) == [
        sorted([corpus["X"].pk, late.pk])
    ]


def test_a_merged_work_leaves_the_lists_and_its_survivor_takes_its_place(corpus):
    """D merges into C: R now cites C; C is cited by P and R (degree 2), D is gone.
    A-C 2/sqrt(6) = 0.8165 (P, R), ties A-B (count 2 too; B older); B-C 1/sqrt(4) = 0.5;
    R couples with P through A and C: 2/sqrt(8) = 0.7071; R-Q 1/sqrt(6) = 0.4082.
    Lists: A: B C; B: A C; C: A B; P: Q R; Q: P R; R: P Q."""
    related_works_compute_all()
    absorbed, survivor = corpus.pop("D"), corpus["C"]
    absorbed_id = absorbed.pk
    with connection.cursor() as cursor:
        citations_move(cursor, [(absorbed.pk, survivor.pk)])
    MergedWork.objects.create(id=absorbed.pk, survivor=survivor)
    absorbed.delete()

    related_works_drain()

    lists = _lists(corpus)
    assert _names(lists) == {
        "A": "BC",
        "B": "AC",
        "C": "AB",
        "P": "QR",
        "Q": "PR",
        "R": "PQ",
        "S": "",
        "X": "",
    }
    assert lists["R"][0] == ("P", 0, 2, pytest.approx(2 / math.sqrt(8)))
    related_works_compute_all()
    assert _lists(corpus) == lists
    merged = Client().get(reverse("api:work-related", args=[absorbed_id]))
    assert merged.status_code == 301
    assert merged["Location"].endswith(reverse("api:work-related", args=[survivor.pk]))


def test_the_work_page_shows_related_works_with_their_reasons_linked(corpus):
    related_works_compute_all()

    page = Client().get(reverse("publications:work-detail", args=[corpus["P"].pk])).content
    page = page.decode()

    assert "Related works" in page
    assert "cited together by 1 work, shares 2 references" in page
    assert reverse("publications:work-detail", args=[corpus["Q"].pk]) in page
    assert page.index("Work Q") < page.index("Work R")
    lonely = Client().get(reverse("publications:work-detail", args=[corpus["X"].pk]))
    assert "No related work yet" in lonely.content.decode()


def test_the_page_and_the_api_run_the_same_queries_for_one_related_work_or_ten():
    hub = [Work.objects.create(title=f"Cited {n}") for n in range(12)]
    pair = [Work.objects.create(title=f"Pair {n}") for n in range(2)]
    for n in range(3):
        _cite(Work.objects.create(title=f"Citing {n}"), *hub)
    _cite(Work.objects.create(title="Citing the pair"), *pair)
    related_works_compute_all()
    assert RelatedWork.objects.filter(work=hub[0]).count() == 10
    assert RelatedWork.objects.filter(work=pair[0]).count() == 1

    counts = []
    for work in (pair[0], hub[0]):
        for url in (
            reverse("publications:work-detail", args=[work.pk]),
            reverse("api:work-related", args=[work.pk]),
        ):
            with CaptureQueriesContext(connection) as queries:
                assert Client().get(url).status_code == 200
            counts.append(len(queries))
    assert counts[:2] == counts[2:]


def test_the_api_lists_related_works_paged_with_counts_and_reasons(corpus):
    related_works_compute_all()
    client = Client()

    body = client.get(reverse("api:work-related", args=[corpus["A"].pk])).json()
    first = client.get(reverse("api:work-related", args=[corpus["A"].pk]), {"page_size": 2}).json()

    assert body["count"] == 3
    assert [row["work"]["title"] for row in body["results"]] == ["Work B", "Work C", "Work D"]
    assert body["results"][0] == {
        "rank": 1,
        "work": body["results"][0]["work"],
        "cocitations": 2,
        "shared_references": 0,
        "score": pytest.approx(2 / math.sqrt(6)),
        "reason": "cited together by 2 works",
    }
    assert body["results"][0]["work"]["id"] == corpus["B"].pk
    assert len(first["results"]) == 2 and first["next"]
    assert client.get(reverse("api:work-related", args=[999_999_999])).status_code == 404
    schema = client.get("/api/schema/", {"format": "json"}).json()
    assert "/api/v1/works/{id}/related/" in schema["paths"]


def test_a_drain_with_nothing_pending_does_nothing():
    assert related_works_drain() == 0


def test_the_command_computes_every_list_and_forgets_what_it_covered(corpus):
    from io import StringIO

    from django.core.management import call_command

    PendingRelatedWorks.objects.create(work_ids=[corpus["A"].pk])
    output = StringIO()

    call_command("compute_related_works", "--no-progress", "--range-size", "4", stdout=output)

    assert "14 related works, 3 ranges" in output.getvalue()
    assert RelatedWork.objects.count() == 14
    assert not PendingRelatedWorks.objects.exists()


def _links_of(first_id: int, last_id: int) -> int:
    """The citations citing or cited by the works with ids in [first_id, last_id]."""
    return (
        Citation.objects.filter(cited__id__gte=first_id, cited__id__lte=last_id).count()
        + Citation.objects.filter(citing__id__gte=first_id, citing__id__lte=last_id).count()
    )


def test_the_ranges_cover_every_work_once_and_hold_about_the_same_cost_on_a_skewed_corpus():
    """Six old works cited by each of 54 later ones, which also cite the one before them: by
    ids, the first range of 15 would hold all the hubs' co-citations. The ranges are cut by
    estimated cost instead, as many as ranges of 15 ids would be, costliest first."""
    from publications.services import related_works_degrees_count, related_works_ranges

    works = [Work.objects.create(title=f"Work {n}") for n in range(60)]
    hubs, later = works[:6], works[6:]
    for previous, work in zip([None, *later], later, strict=False):
        _cite(work, *hubs, *([previous] if previous else []))
    related_works_degrees_count()
    ids = sorted(work.pk for work in works)

    ranges = related_works_ranges(range_size=15)

    costs = [work_range.estimated_cost for work_range in ranges]
    assert costs == sorted(costs, reverse=True)
    by_id = sorted(ranges)
    assert by_id[0].first_id == ids[0] and by_id[-1].last_id == ids[-1]
    for before, after in zip(by_id, by_id[1:], strict=False):
        assert after.first_id == before.last_id + 1
    covering = [
        [n for n, r in enumerate(by_id) if r.first_id <= work_id <= r.last_id] for work_id in ids
    ]
    assert all(len(found) == 1 for found in covering)
    assert len(ranges) == 4
    assert max(costs) <= 1.5 * min(costs)
    # The hubs' range holds fewer works than a range of recent works.
    sizes = [sum(r.first_id <= work_id <= r.last_id for work_id in ids) for r in by_id]
    assert sizes[0] < sizes[-1]
    # Balanced in what the statement reads, too: the citation links of each range's works.
    links = [_links_of(r.first_id, r.last_id) for r in by_id]
    fixed = [_links_of(first, first + 14) for first in range(ids[0], ids[-1] + 1, 15)]
    assert max(links) / min(links) < max(fixed) / min(fixed)


def test_there_are_no_ranges_without_works():
    from publications.services import related_works_ranges

    assert related_works_ranges() == []
