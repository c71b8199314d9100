"""HEAD on every HTML page answers as GET does, without a body (RFC 9110: HEAD is GET minus
the content). Link checkers, uptime monitors and caches send HEAD; a 405 tells them the
page is broken."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.urls import URLPattern, URLResolver, get_resolver

from tests.factories import (
    AuthorshipFactory,
    InstitutionFactory,
    ResearcherFactory,
    TopicFactory,
    UserFactory,
    WorkFactory,
    WorkTopicFactory,
)

pytestmark = pytest.mark.django_db

# The apps whose HTML views are ours; the API (DRF) answers HEAD for GET by itself.
OUR_HTML_APPS = (
    "pages.",
    "search.",
    "graph.",
    "claims.",
    "collaboration.",
    "notifications.",
    "feed.",
)
# Pages of the libraries we mount, asked too: they must keep answering HEAD.
LIBRARY_PAGES = ["/accounts/login/", "/accounts/signup/", "/sitemap.xml", "/api/docs/"]


def _patterns(resolver: URLResolver, prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            yield from _patterns(entry, prefix + str(entry.pattern))
        else:
            yield prefix + str(entry.pattern), entry


def make_records() -> dict[str, Any]:
    """A researcher with a work, its topic, and an institution: one of each page's subject."""
    institution = InstitutionFactory()
    researcher = ResearcherFactory()
    work = WorkFactory()
    AuthorshipFactory(work=work, researcher=researcher)
    topic = TopicFactory()
    WorkTopicFactory(work=work, topic=topic)
    return {"researcher": researcher, "work": work, "topic": topic, "institution": institution}


@pytest.fixture
def records() -> dict[str, Any]:
    return make_records()


def _url(route: str, records: dict[str, Any]) -> str:
    """The route with its parameters filled from records (a claim id that does not exist
    still answers: HEAD must then give the same 404 or 405 as GET)."""
    values = {
        "<slug:slug>": records["researcher"].slug,
        "<int:work_id>": str(records["work"].pk),
    }
    if route.startswith("works/"):
        values["<int:pk>"] = str(records["work"].pk)
    elif route.startswith("topics/"):
        values["<int:pk>"] = str(records["topic"].pk)
    elif route.startswith("institutions/"):
        values["<int:pk>"] = str(records["institution"].pk)
    else:
        values["<int:pk>"] = "999999"
    for placeholder, value in values.items():
        route = route.replace(placeholder, value)
    # Any other id names a row that does not exist: the page must still answer (404 or 405),
    # and a token or a string anything but a valid one (400 or 404).
    route = re.sub(r"<int:\w+>", "999999", route)
    route = re.sub(r"<(str|slug):\w+>", "not-a-valid-value", route)
    assert "<" not in route, f"no value for a parameter of {route}"
    return "/" + route


def our_html_urls(records: dict[str, Any]) -> list[str]:
    return [
        _url(route, records)
        for route, pattern in _patterns(get_resolver())
        if getattr(pattern.callback, "__module__", "").startswith(OUR_HTML_APPS)
        and not route.startswith(("admin/", "api/"))  # the admin's and the API's own views
    ]


def _sign_in(client) -> None:
    user = UserFactory(email="member@example.org")
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    client.force_login(user)


def test_it_walks_every_public_page_of_ours(records):
    urls = our_html_urls(records)
    for expected in ["/", f"/researchers/{records['researcher'].slug}/", "/search/", "/explore/"]:
        assert expected in urls
    assert len(urls) >= 20


@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymous", "member"])
def test_it_answers_head_like_get_without_a_body_on_every_page(client, records, signed_in):
    if signed_in:
        _sign_in(client)
    answered_200 = []
    for url in our_html_urls(records) + LIBRARY_PAGES:
        get = client.get(url)
        if get.status_code == 405:
            continue  # a POST-only action: HEAD is refused with it
        head = client.head(url)
        assert head.status_code == get.status_code, f"HEAD {url}"
        assert head.content == b"", f"HEAD {url} sent a body"
        if get.status_code == 200:
            assert head["Content-Type"] == get["Content-Type"], f"HEAD {url}"
            answered_200.append(url)
    # The pages a visitor reads answered 200 to both.
    assert "/" in answered_200
    assert f"/researchers/{records['researcher'].slug}/" in answered_200
    assert f"/works/{records['work'].pk}/" in answered_200
    assert "/search/" in answered_200


def test_it_still_refuses_head_where_get_is_refused(client, records):
    _sign_in(client)
    # The follow button's POST-only action: neither GET nor HEAD.
    url = f"/researchers/{records['researcher'].slug}/follow/"
    assert client.get(url).status_code == 405
    assert client.head(url).status_code == 405
