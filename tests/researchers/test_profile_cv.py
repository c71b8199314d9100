"""The profile's CV: the seeds' headings below the identity section, each entry with its source
and its dates as precise as the source was, hidden entries left out, one statement whatever
the CV's length, and the anonymous page cache following every change of the CV."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings
from django.urls import reverse

from researchers.cv_display import cv_dates, partial_date_text
from researchers.models import CVEntry
from researchers.services import cv_entry_hidden_set
from tests.factories import ResearcherFactory, UserFactory

pytestmark = pytest.mark.django_db


def _text(response) -> str:
    html = response.content.decode()
    html = html[html.index("<main") : html.index("</main>")]
    html = re.sub(r"<script.*?</script>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _entry(researcher, key: str, **fields) -> CVEntry:
    fields.setdefault("section", "employment")
    return CVEntry.objects.create(
        researcher=researcher, source="orcid", source_key=f"0000-0002-1825-0097:{key}", **fields
    )


def _cv_of_the_seeds(researcher) -> None:
    _entry(
        researcher,
        "1",
        organisation="Amazon Web Services AI",
        role="Applied Scientist",
        city="Seattle",
        country="US",
        start_year=2023,
        start_month=10,
    )
    _entry(
        researcher,
        "2",
        organisation="ByteDance",
        role="Research Intern",
        start_year=2021,
        start_month=2,
        end_year=2022,
        end_month=8,
    )
    _entry(
        researcher,
        "3",
        section="education",
        organisation="Rice University",
        role="Ph.D. in Computer Science",
        city="Houston",
        region="TX",
        country="US",
        start_year=2019,
        end_year=2023,
    )
    _entry(
        researcher,
        "4",
        section="distinction",
        organisation="Sun Yat-sen University",
        role="National Scholarship",
        start_year=2016,
    )
    _entry(
        researcher,
        "5",
        section="invited-position",
        organisation="KAUST",
        role="Visiting student",
        start_year=2019,
        end_year=2019,
    )


def test_the_cv_reads_as_the_seeds_do_below_the_identity_section(client):
    researcher = ResearcherFactory(display_name="Zhuang Wang")
    _cv_of_the_seeds(researcher)

    text = _text(client.get(reverse("researcher-profile", args=[researcher.slug])))

    expected_in_order = [
        "Zhuang Wang",
        "Curriculum vitae",
        "Experience",
        "Amazon Web Services AI",
        "Oct 2023 – present",
        "Applied Scientist",
        "Seattle, US",
        "from ORCID",
        "ByteDance",
        "Feb 2021 – Aug 2022",
        "Research Intern",
        "KAUST",
        "2019",
        "Visiting student",
        "Invited position",
        "Education",
        "Rice University",
        "2019 – 2023",
        "Ph.D. in Computer Science",
        "Houston, TX, US",
        "Awards",
        "Sun Yat-sen University",
        "2016",
        "National Scholarship",
        "Trust snapshot",
    ]
    positions = [text.find(fragment) for fragment in expected_in_order]
    missing = [f for f, p in zip(expected_in_order, positions, strict=True) if p < 0]
    assert not missing, missing
    # Each fragment after the one before it (a plain find would meet "2019" early).
    cursor = 0
    for fragment in expected_in_order:
        found = text.find(fragment, cursor)
        assert found >= 0, f"{fragment!r} out of order"
        cursor = found + len(fragment)
    assert text.count("from ORCID") == 5


def test_a_record_without_a_cv_shows_no_cv_section(client):
    researcher = ResearcherFactory()
    assert "Curriculum vitae" not in _text(
        client.get(reverse("researcher-profile", args=[researcher.slug]))
    )


def test_hidden_entries_are_not_shown(client):
    researcher = ResearcherFactory()
    _entry(researcher, "1", organisation="Shown University")
    _entry(researcher, "2", organisation="Hidden Corp", hidden=True)

    text = _text(client.get(reverse("researcher-profile", args=[researcher.slug])))

    assert "Shown University" in text
    assert "Hidden Corp" not in text


def test_cv_text_is_escaped(client):
    researcher = ResearcherFactory()
    _entry(
        researcher,
        "1",
        organisation="<script>alert(1)</script>",
        role="<b>Lead</b>",
        url="javascript:alert(1)",
    )
    html = client.get(reverse("researcher-profile", args=[researcher.slug])).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;Lead&lt;/b&gt;" in html


def test_the_profile_runs_the_same_queries_with_0_and_30_cv_entries(
    client, django_assert_max_num_queries
):
    empty = ResearcherFactory()
    full = ResearcherFactory()
    for index in range(30):
        _entry(
            full,
            str(index),
            section=("employment", "education", "distinction", "service")[index % 4],
            organisation=f"Organisation {index}",
            start_year=1990 + index,
        )
    client.force_login(UserFactory())
    # The inbox badge is read on the first signed-in page and cached (issue 24, item 15).
    client.get(reverse("home"))

    with django_assert_max_num_queries(20) as empty_queries:
        assert client.get(reverse("researcher-profile", args=[empty.slug])).status_code == 200
    with django_assert_max_num_queries(len(empty_queries.captured_queries)) as full_queries:
        response = client.get(reverse("researcher-profile", args=[full.slug]))
    assert len(full_queries.captured_queries) == len(empty_queries.captured_queries)
    text = _text(response)
    assert all(f"Organisation {index} " in text for index in range(30))


@pytest.mark.django_db(transaction=True)
@override_settings(PROFILE_PAGE_CACHE_SECONDS=300)
def test_the_cached_anonymous_page_follows_a_hidden_entry(client):
    researcher = ResearcherFactory()
    entry = _entry(researcher, "1", organisation="Soon Hidden Institute")
    url = reverse("researcher-profile", args=[researcher.slug])
    assert "Soon Hidden Institute" in _text(client.get(url))
    assert "Soon Hidden Institute" in _text(client.get(url))  # served from the cache

    cv_entry_hidden_set(researcher_id=researcher.pk, entry_id=entry.pk, hidden=True)
    assert "Soon Hidden Institute" not in _text(client.get(url))

    cv_entry_hidden_set(researcher_id=researcher.pk, entry_id=entry.pk, hidden=False)
    assert "Soon Hidden Institute" in _text(client.get(url))


@pytest.mark.django_db(transaction=True)
@override_settings(PROFILE_PAGE_CACHE_SECONDS=300)
def test_the_page_state_moves_with_the_cv_even_when_nothing_else_does(client):
    """A CV written by a path that forgets to move the works version (a plain UPDATE, a new
    entry) still never meets its old cached page: the CV is part of the page's state."""
    researcher = ResearcherFactory()
    entry = _entry(researcher, "1", organisation="Quietly Changed Lab")
    url = reverse("researcher-profile", args=[researcher.slug])
    assert "Quietly Changed Lab" in _text(client.get(url))

    CVEntry.objects.filter(pk=entry.pk).update(hidden=True)
    assert "Quietly Changed Lab" not in _text(client.get(url))

    _entry(researcher, "2", organisation="Freshly Added Lab")
    assert "Freshly Added Lab" in _text(client.get(url))


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"section": "employment", "start_year": 2018}, "2018 – present"),
        ({"section": "distinction", "start_year": 2018}, "2018"),
        ({"section": "education", "start_year": 2010, "end_year": 2014}, "2010 – 2014"),
        ({"section": "employment", "start_year": 2019, "end_year": 2019}, "2019"),
        (
            {"section": "employment", "start_year": 2022, "start_month": 9, "end_year": 2023},
            "Sep 2022 – 2023",
        ),
        ({"section": "employment", "end_year": 2001}, "2001"),
        ({"section": "employment"}, ""),
    ],
)
def test_dates_keep_the_precision_the_source_gave(row, expected):
    assert cv_dates(row) == expected


def test_a_full_date_is_shown_with_its_day():
    assert partial_date_text(2020, 3, 4) == "4 Mar 2020"
    assert partial_date_text(2020, 13, None) == "2020"
