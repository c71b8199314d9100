"""Who cites a researcher (issue 25, item 3): on the profile, the researchers who cite this one
most, counted from the citing works held here, without self-citations; and the citations per
year of those works beside the sources' yearly counts."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from publications.models import Authorship, Citation, Work
from publications.selectors import researcher_citations
from researchers.models import Researcher

pytestmark = pytest.mark.django_db


def _person(slug: str, **fields) -> Researcher:
    return Researcher.objects.create(slug=slug, display_name=slug.title(), **fields)


def _work(title: str, year: int, *authors: Researcher) -> Work:
    work = Work.objects.create(title=title, publication_year=year)
    Authorship.objects.bulk_create(
        Authorship(work=work, researcher=author, position=n, raw_name=author.display_name)
        for n, author in enumerate(authors, start=1)
    )
    return work


def _cite(citing: Work, *cited: Work) -> None:
    Citation.objects.bulk_create(Citation(citing=citing, cited=work) for work in cited)


@pytest.fixture
def ada() -> tuple[Researcher, list[Work]]:
    ada = _person("ada", citations_by_year={"2023": 40, "2022": 7})
    return ada, [_work("Ada one", 2019, ada), _work("Ada two", 2020, ada)]


def test_the_researchers_who_cite_most_and_the_citations_per_year(ada):
    ada, (one, two) = ada
    bob, cy, dee = _person("bob"), _person("cy"), _person("dee")
    # bob cites both works twice over (two works); cy once; dee and cy together once; ada herself
    # cites her first work from a later one (a self-citation: left out of who cites her).
    _cite(_work("Bob 2022", 2022, bob), one, two)
    _cite(_work("Bob 2023", 2023, bob), one)
    _cite(_work("Cy 2023", 2023, cy), two)
    _cite(_work("Dee and Cy 2023", 2023, dee, cy), one)
    _cite(_work("Ada three", 2023, ada), one)

    found = researcher_citations(ada.pk)

    assert [(c.slug, c.citations) for c in found.citing] == [("bob", 3), ("cy", 2), ("dee", 1)]
    # Every citation of her works held here, her own included: 3 + 1 + 1 + 1 (by year of the
    # citing work).
    assert found.total == 6
    assert found.by_year == {2022: 2, 2023: 4}

    page = Client().get(reverse("researcher-profile", args=[ada.slug])).content.decode()
    assert "6 citations from works bzpeer holds" in page
    assert page.index(">Bob<") < page.index(">Cy<") < page.index(">Dee<")
    # The table: held here beside what the sources state (40 in 2023, 7 in 2022).
    assert '<th scope="row">2023</th><td>4</td><td>40</td>' in page
    assert '<th scope="row">2022</th><td>2</td><td>7</td>' in page


def test_a_researcher_nobody_cites_says_so(ada):
    ada, _ = ada
    page = Client().get(reverse("researcher-profile", args=[ada.slug])).content.decode()
    assert "No work bzpeer holds cites this record yet." in page


def test_the_profile_runs_the_same_queries_for_no_citation_or_many(ada):
    ada, (one, two) = ada
    quiet = _person("quiet")
    _work("Quiet one", 2020, quiet)
    for n in range(40):
        _cite(_work(f"Citing {n}", 2020 + n % 4, _person(f"citer-{n}")), one, two)

    counts = []
    for researcher in (quiet, ada):
        with CaptureQueriesContext(connection) as queries:
            Client().get(reverse("researcher-profile", args=[researcher.slug]))
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_names_of_citing_researchers_are_escaped(ada):
    ada, (one, _) = ada
    bad = Researcher.objects.create(slug="bad", display_name="<script>alert(1)</script>")
    _cite(_work("Bad", 2024, bad), one)
    page = Client().get(reverse("researcher-profile", args=[ada.slug])).content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
