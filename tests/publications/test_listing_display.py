"""How a listed work reads, as the reference pages show it (issue 24, items 10-12): full dates
where the source gives them, compact bylines with the profile's own author and the work's
institution, the primary category as its short tag; in a fixed number of queries."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from publications.display import (
    category_tag,
    compact_byline,
    institution_short_name,
    work_date_label,
)
from tests.factories import (
    AuthorshipFactory,
    InstitutionFactory,
    ResearcherFactory,
    TopicFactory,
    WorkFactory,
    WorkTopicFactory,
)


def test_a_full_date_reads_as_the_reference_shows_it():
    assert work_date_label(datetime.date(2023, 11, 12), "", 2023) == ("Nov 12, 2023", "2023-11-12")
    assert work_date_label(datetime.date(2023, 11, 12), "day", 2023)[0] == "Nov 12, 2023"


def test_a_month_or_a_year_alone_is_shown_as_far_as_it_is_known():
    assert work_date_label(datetime.date(2023, 11, 1), "month", 2023) == ("Nov 2023", "2023-11")
    assert work_date_label(None, "year", 2021) == ("2021", "2021")
    assert work_date_label(None, "", None) == ("", "")


@pytest.mark.parametrize(
    ("code", "tag"),
    [("cs.NI", "NI"), ("physics.app-ph", "APP-PH"), ("cs.LG", "LG"), ("hep-th", "HEP-TH")],
)
def test_a_category_shows_its_short_tag(code, tag):
    assert category_tag(code) == tag


def test_an_institution_shows_the_owners_label_of_its_domain():
    assert institution_short_name("University of California, Berkeley", "berkeley.edu") == (
        "berkeley"
    )
    assert institution_short_name("Tsinghua University", "tsinghua.edu.cn") == "tsinghua"
    assert institution_short_name("University of Oxford", "ox.ac.uk") == "ox"
    assert institution_short_name("ByteDance", None) == "ByteDance"


def _authors(count: int) -> list[dict]:
    return [
        {"slug": None, "name": None, "raw_name": f"Author {n}", "position": n}
        for n in range(1, count + 1)
    ]


def test_a_long_byline_shows_its_first_three_authors_and_et_al():
    byline = compact_byline(_authors(12), 40)
    assert [a["raw_name"] for a in byline.shown] == ["Author 1", "Author 2", "Author 3"]
    assert byline.et_al and not byline.gap_before_own


def test_the_profiles_own_author_is_always_visible_even_past_the_listed_start():
    own = {"slug": "ada", "name": "Ada", "raw_name": "Ada", "position": 30}
    byline = compact_byline(_authors(12), 40, own)
    assert [a["raw_name"] for a in byline.shown][-1] == "Ada"
    assert byline.gap_before_own and byline.et_al
    last = {"slug": "ada", "name": "Ada", "raw_name": "Ada", "position": 4}
    byline = compact_byline(_authors(4), 4, last)
    assert not byline.gap_before_own and not byline.et_al


def test_a_short_byline_has_no_et_al():
    byline = compact_byline(_authors(3), 3)
    assert len(byline.shown) == 3 and not byline.et_al


@pytest.fixture
def profile_with_works(db):
    ada = ResearcherFactory(display_name="Ada Lovelace", slug="ada-lovelace")
    berkeley = InstitutionFactory(
        name="University of California, Berkeley", email_domains=["berkeley.edu"]
    )
    networking = TopicFactory(
        external_id="arxiv:cs.NI",
        name="Networking and Internet Architecture",
        code="cs.NI",
        level="category",
    )
    learning = TopicFactory(
        external_id="arxiv:cs.LG", name="Machine Learning", code="cs.LG", level="category"
    )
    for n in range(25):
        work = WorkFactory(
            title=f"Work {n}",
            publication_date=datetime.date(2023, 11, 12) if n == 0 else None,
            publication_year=2023 if n == 0 else 2020,
            authors_count=30,
        )
        # The first institution the byline names is the work's (Coauthor 2's, as the
        # reference's "et al. · berkeley").
        for position in range(1, 13):
            AuthorshipFactory(
                work=work,
                researcher=None,
                position=position,
                raw_name=f"Coauthor {position}",
                institution_ids=[berkeley.pk] if position == 2 else [],
            )
        AuthorshipFactory(work=work, researcher=ada, position=20, raw_name="Ada Lovelace")
        WorkTopicFactory(work=work, topic=networking, score=1.0)
        WorkTopicFactory(work=work, topic=learning, score=0.5)
    return ada


@pytest.mark.django_db
def test_the_profile_shows_dates_bylines_institutions_and_tags_in_fixed_queries(
    client, profile_with_works, django_assert_num_queries, settings
):
    # The record (with who cites it), the filter choices, one page of works, the claim
    # panel's counts.
    settings.PROFILE_PAGE_CACHE_SECONDS = 0
    with django_assert_num_queries(4):
        response = client.get(reverse("researcher-profile", args=["ada-lovelace"]))
    html = response.content.decode()

    assert '<time class="work-date" datetime="2023-11-12">Nov 12, 2023</time>' in html
    assert '<time class="work-date" datetime="2020">2020</time>' in html
    assert "Coauthor 1</a>" not in html  # unlinked: no researcher record
    assert "Coauthor 1, Coauthor 2, Coauthor 3, …, " in html
    assert (
        'class="own-author" aria-current="page" href="/researchers/ada-lovelace/">Ada Lovelace'
        in html
    )
    assert ' et al. · <a class="work-institution"' in html
    assert 'title="University of California, Berkeley">berkeley</a>' in html
    assert "<summary>All 30 authors</summary>" in html
    assert (
        'title="Networking and Internet Architecture (cs.NI)" '
        'aria-label="Primary category: Networking and Internet Architecture (cs.NI)">NI</a>'
    ) in html
    assert 'title="Machine Learning">LG<span class="visually-hidden"> Machine Learning' in html


@pytest.mark.django_db
def test_imported_names_stay_escaped_in_the_compact_byline(client):
    ada = ResearcherFactory(slug="ada-lovelace")
    hostile = InstitutionFactory(name='<script>alert("x")</script>', email_domains=[])
    work = WorkFactory(authors_count=1)
    AuthorshipFactory(
        work=work, researcher=ada, position=1, raw_name="<b>Ada</b>", institution_ids=[hostile.pk]
    )
    html = client.get(reverse("researcher-profile", args=["ada-lovelace"])).content.decode()
    assert "<b>Ada</b>" not in html and "&lt;b&gt;Ada&lt;/b&gt;" in html
    assert '<script>alert("x")</script>' not in html


@pytest.mark.django_db(transaction=True)
def test_an_arxiv_works_primary_category_is_listed_first(testdata_dir):
    """quant-ph/0201082 is in quant-ph (primary) and cs.PL: the primary is the short tag, though
    cs.PL sorts first by name."""
    from django.core.management import call_command

    from publications.display import work_categories
    from publications.models import Work
    from publications.selectors import WorkListing

    path = testdata_dir / "arxiv" / "api" / "id_quant-ph_0201082v1.atom.xml"
    call_command("import", "arxiv", str(path), sync=True, no_progress=True)
    work = Work.objects.get(arxiv_id="quant-ph/0201082")
    [listed] = [w for w in WorkListing.recent()[:50] if w.pk == work.pk]
    categories = work_categories(listed.listed_topics)
    assert categories.primary["code"] == "quant-ph"
    assert category_tag(categories.primary["code"]) == "QUANT-PH"
    assert [t["code"] for t in categories.others] == ["cs.PL"]
