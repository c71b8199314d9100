"""Atom feeds of researchers and topics: valid XML, newest arrivals first, escaped text."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

from tests.factories import ResearcherFactory, TopicFactory

from .conftest import minutes_ago, work_by

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"


def _entries(response) -> list[ET.Element]:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    root = ET.fromstring(response.content)
    assert root.tag == f"{ATOM}feed"
    return root.findall(f"{ATOM}entry")


def test_a_researchers_feed_lists_the_newest_arrivals_first(client):
    ada = ResearcherFactory(display_name="Ada Example")
    older = work_by(ada, at=minutes_ago(90), title="Older arrival")
    newest = work_by(ada, at=minutes_ago(5), title="Newest arrival")
    work_by(ResearcherFactory(), title="Someone else's")

    entries = _entries(client.get(reverse("feed:researcher-atom", args=[ada.slug])))

    assert [e.findtext(f"{ATOM}title") for e in entries] == ["Newest arrival", "Older arrival"]
    assert entries[0].find(f"{ATOM}link").get("href").endswith(f"/works/{newest.pk}/")
    assert older.pk != newest.pk


def test_titles_with_markup_tex_and_control_characters_stay_valid_xml(client):
    topic = TopicFactory(name="Fluids & <flows>")
    title = 'On $\\alpha < \\beta$ & <i>Drosophila</i> \x0b in "quotes"'
    work_by(ResearcherFactory(), topics=[topic], title=title, abstract="a < b & c")

    response = client.get(reverse("feed:topic-atom", args=[topic.pk]))
    entries = _entries(response)

    assert entries[0].findtext(f"{ATOM}title") == title.replace("\x0b", "")
    assert entries[0].findtext(f"{ATOM}summary") == "a < b & c"
    root = ET.fromstring(response.content)
    assert root.findtext(f"{ATOM}title") == "Fluids & <flows>: new works on bzpeer"


def test_the_pages_link_their_feeds_in_the_head(client):
    ada = ResearcherFactory()
    topic = TopicFactory()
    profile = client.get(reverse("researcher-profile", args=[ada.slug])).content.decode()
    head = profile.split("</head>")[0]
    assert 'rel="alternate" type="application/atom+xml"' in head
    assert reverse("feed:researcher-atom", args=[ada.slug]) in head
    topic_page = client.get(reverse("publications:topic-detail", args=[topic.pk])).content.decode()
    assert reverse("feed:topic-atom", args=[topic.pk]) in topic_page.split("</head>")[0]


def test_a_merged_researchers_feed_redirects_and_unknown_ones_are_404(client):
    survivor = ResearcherFactory()
    merged = ResearcherFactory(merged_into=survivor)
    response = client.get(reverse("feed:researcher-atom", args=[merged.slug]))
    assert response.status_code == 301
    assert response["Location"] == reverse("feed:researcher-atom", args=[survivor.slug])
    assert client.get(reverse("feed:researcher-atom", args=["nobody"])).status_code == 404
    assert client.get(reverse("feed:topic-atom", args=[10**6])).status_code == 404
    assert client.post(reverse("feed:topic-atom", args=[1])).status_code == 405


HOSTILE = '<img src=x onerror="alert(1)"> & <script>alert(2)</script> \u202e'


def test_no_field_of_either_feed_is_read_as_html_by_a_feed_reader(client):
    """Every element a reader shows is text: hostile markup in a title, an abstract, an author's
    name, a researcher's or a topic's name arrives as those characters, never as markup."""
    ada = ResearcherFactory(display_name=f"Ada {HOSTILE}")
    topic = TopicFactory(name=f"Topic {HOSTILE}")
    work_by(ada, topics=[topic], title=f"Title {HOSTILE}", abstract=f"Abstract {HOSTILE}")

    for url in (
        reverse("feed:researcher-atom", args=[ada.slug]),
        reverse("feed:topic-atom", args=[topic.pk]),
    ):
        response = client.get(url)
        root = ET.fromstring(response.content)
        for element in root.iter():
            assert element.get("type") in (None, "text"), (element.tag, element.get("type"))
        (entry,) = root.findall(f"{ATOM}entry")
        assert entry.findtext(f"{ATOM}title") == f"Title {HOSTILE}"
        assert entry.findtext(f"{ATOM}summary") == f"Abstract {HOSTILE}"
        assert HOSTILE in entry.find(f"{ATOM}author").findtext(f"{ATOM}name")
        assert b"<script>" not in response.content and b"<img" not in response.content
