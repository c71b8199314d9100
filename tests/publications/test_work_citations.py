"""A work's references and the works citing it (issue 25, item 2): on the work page, paged and
sortable, with the count held here beside the source's; and in the API."""

from __future__ import annotations

import datetime
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from publications.models import Citation, MergedWork, UnresolvedReference, Work, WorkSource

pytestmark = pytest.mark.django_db


def _work(title: str, *, year: int = 2020, cited_by: int = 0, **fields) -> Work:
    return Work.objects.create(
        title=title,
        publication_year=year,
        publication_date=datetime.date(year, 6, 1),
        cited_by_count=cited_by,
        **fields,
    )


def _cite(citing: Work, *cited: Work) -> None:
    Citation.objects.bulk_create([Citation(citing=citing, cited=work) for work in cited])


def _page(work: Work, **query) -> str:
    response = Client().get(reverse("publications:work-detail", args=[work.pk]), query)
    assert response.status_code == 200
    return response.content.decode()


def test_the_work_page_lists_references_and_citing_works_with_both_counts():
    work = _work("The work", cited_by=340, openalex_id="W9900000001")
    WorkSource.objects.create(work=work, origin="openalex", origin_id="W9900000001", fields={})
    old = _work("An old reference", year=1990, cited_by=900)
    new = _work("A new reference", year=2019, cited_by=3)
    citing = _work("A citing work", year=2024)
    _cite(work, old, new)
    _cite(citing, work)
    UnresolvedReference.objects.create(citing=work, identifier="openalex:W1")

    page = _page(work)

    assert "References (2)" in page and "Cited by (1)" in page
    assert "Cited by 1 here, 340 according to OpenAlex" in page
    assert "and 1 reference to work not on bzpeer yet" in page
    for listed in (old, new, citing):
        assert reverse("publications:work-detail", args=[listed.pk]) in page
    # Most cited first by default; newest first on request.
    assert page.index("An old reference") < page.index("A new reference")
    by_year = _page(work, refs_sort="year")
    assert by_year.index("A new reference") < by_year.index("An old reference")


def test_a_long_list_is_paged_and_each_list_keeps_the_others_place():
    work = _work("The work")
    references = [_work(f"Reference {n:02d}", cited_by=100 - n) for n in range(25)]
    _cite(work, *references)

    first = _page(work)
    second = _page(work, refs_page=2, cites_sort="year")

    assert "Reference 00" in first and "Reference 19" in first and "Reference 20" not in first
    assert "Reference 20" in second and "Reference 24" in second and "Reference 19" not in second
    assert "Page 2 of 2" in second
    # The pager's link back keeps the other list's sort.
    previous = re.search(r'<a href="([^"]*)" rel="prev">', second).group(1)
    assert "refs_page=1" in previous and "cites_sort=year" in previous


def test_the_page_runs_the_same_queries_for_one_citation_or_sixty():
    small, large = _work("Small"), _work("Large")
    _cite(small, _work("Only reference"))
    _cite(_work("Only citing work"), small)
    many = [_work(f"Ref {n}") for n in range(60)]
    _cite(large, *many)
    for citing in many[:30]:
        _cite(citing, large)

    counts = []
    for work in (small, large):
        with CaptureQueriesContext(connection) as queries:
            _page(work)
        counts.append(len(queries))
    # The ETag's, the work with everything but the lists, one page of each list.
    assert counts == [3, 3]


def test_a_page_number_out_of_range_shows_the_last_page_and_one_not_a_number_the_first():
    work = _work("The work")
    _cite(work, *[_work(f"Reference {n:02d}", cited_by=100 - n) for n in range(25)])

    for number in ("2", "3", "99", "0", "-1"):
        page = _page(work, refs_page=number)
        assert "Page 2 of 2" in page and "Reference 20" in page and "Reference 19" not in page
    for number in ("x", "1.5", "2.0", ""):
        page = _page(work, refs_page=number)
        assert "Page 1 of 2" in page and "Reference 19" in page and "Reference 20" not in page
    # The second page of the list starts at its twenty-first work.
    assert '<ol class="citation-list" start="21">' in _page(work, refs_page=2)


def test_the_references_still_waiting_for_their_work_are_counted_in_words():
    work = _work("The work")
    UnresolvedReference.objects.create(citing=work, identifier="openalex:W1")
    assert "and 1 reference to work not on bzpeer yet, linked when it arrives." in _page(work)

    for identifier in ("openalex:W2", "doi:10.1/two"):
        UnresolvedReference.objects.create(citing=work, identifier=identifier)
    assert "and 3 references to works not on bzpeer yet, linked when they arrive." in _page(work)


def test_unlinked_references_are_shown_as_text():
    work = _work("The work")
    WorkSource.objects.create(
        work=work,
        origin="crossref",
        origin_id="10.1/x",
        fields={"unlinked_references": ["Waller R. Essayes (1964).", "<b>bold</b> claim"]},
    )
    page = _page(work)
    assert "2 references given as text only" in page
    assert "Waller R. Essayes (1964)." in page
    assert "&lt;b&gt;bold&lt;/b&gt; claim" in page and "<b>bold</b>" not in page


def test_a_new_citation_changes_the_pages_etag():
    work = _work("The work")
    client = Client()
    url = reverse("publications:work-detail", args=[work.pk])
    etag = client.get(url)["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304

    _cite(_work("A new citing work"), work)

    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_the_api_lists_references_and_citations_sorted_and_paged():
    work = _work("The work")
    old = _work("Old", year=1990, cited_by=5)
    new = _work("New", year=2023, cited_by=1)
    _cite(work, old, new)
    _cite(new, work)
    client = Client()

    references = client.get(reverse("api:work-references", args=[work.pk])).json()
    assert references["count"] == 2
    assert [r["title"] for r in references["results"]] == ["Old", "New"]
    by_year = client.get(reverse("api:work-references", args=[work.pk]), {"sort": "year"}).json()
    assert [r["title"] for r in by_year["results"]] == ["New", "Old"]
    citations = client.get(reverse("api:work-citations", args=[work.pk])).json()
    assert [r["id"] for r in citations["results"]] == [new.pk]
    assert citations["results"][0]["url"].endswith(reverse("api:work-detail", args=[new.pk]))


def test_the_api_answers_a_bad_sort_an_unknown_work_and_a_merged_one_clearly():
    work = _work("The work")
    client = Client()

    bad = client.get(reverse("api:work-references", args=[work.pk]), {"sort": "random"})
    assert bad.status_code == 400 and "sort must be one of" in bad.json()["detail"]
    missing = client.get(reverse("api:work-citations", args=[999_999_999]))
    assert missing.status_code == 404
    MergedWork.objects.create(id=888_888_888, survivor=work)
    merged = client.get(reverse("api:work-citations", args=[888_888_888]))
    assert merged.status_code == 301
    assert merged["Location"].endswith(reverse("api:work-citations", args=[work.pk]))


def test_the_lists_are_in_the_openapi_schema():
    schema = Client().get("/api/schema/", {"format": "json"}).json()
    assert "/api/v1/works/{id}/references/" in schema["paths"]
    assert "/api/v1/works/{id}/citations/" in schema["paths"]
