"""Hostile requests against every URL pattern of the site: none is answered with a 5xx.

The URL patterns come from the root URLconf itself, so a page added later is swept without
anyone listing it. Their path parameters are filled with real objects (a researcher, a work, a
topic, an institution, a claim of the signed-in member). For each address, the parameters the
view reads are found by asking it once with harmless values and recording which keys it looks
up in the query string or the form body; each of those then gets every hostile value in turn:
NUL, invalid UTF-8, numbers past any integer column, operators of PostgreSQL's text search,
very long values, wrong types and repeated keys. Paths, headers and JSON bodies get theirs too.
Every request is made as an anonymous visitor and as a signed-in member, through the whole
middleware stack with CSRF checks on (the member sends a valid token).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from unittest import mock

import pytest
from django.test import Client

from tests.bzpeer.hostile import (
    HOSTILE_BODIES,
    HOSTILE_HEADERS,
    HOSTILE_JSON_VALUES,
    HOSTILE_PATH_VALUES,
    SWEEP_PARTS,
    VISITORS,
    Site,
    Visitor,
    all_paths,
    api_body_properties,
    basic_credentials,
    paths_of_part,
    sweep_parameters,
)


@pytest.fixture(autouse=True)
def _rendered_templates_not_kept() -> Iterator[None]:
    """A sweep reads status codes only. Django's test client keeps a copy of the context of
    every template and include a page renders (for response.context), thousands per page with
    a long select or an admin form; here nothing is kept."""
    with mock.patch("django.test.client.store_rendered_templates", lambda *args, **kwargs: None):
        yield


@pytest.fixture(autouse=True)
def _client_errors_not_logged() -> Iterator[None]:
    """Django logs each 4xx answer as a warning ("Not Found: ...", "Forbidden (CSRF token
    missing)"): tens of thousands in a sweep, each formatted for the console and for pytest's
    report, some 6% of a request's CPU, and read by nothing, since a sweep checks status
    codes. Errors (a 5xx) are still logged, with their traceback."""
    loggers = [logging.getLogger(name) for name in ("django.request", "django.security")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    yield
    for logger, level in zip(loggers, levels, strict=True):
        logger.setLevel(level)


@pytest.fixture(params=VISITORS)
def visitor(request, site: Site) -> Visitor:
    return Visitor(site, request.param)


@pytest.fixture(params=["anonymous", "member"])
def anonymous_or_member(request, site: Site) -> Visitor:
    """For paths and headers, which no form depends on: the newcomer would add nothing."""
    return Visitor(site, request.param)


def test_it_walks_every_url_pattern_of_the_site(site: Site) -> None:
    paths = {route.path(values) for route, values in all_paths(site)}
    for expected in [
        "/explore/",
        "/coi/",
        "/search/",
        f"/researchers/{site.researcher.slug}/",
        f"/works/{site.work.pk}/",
        f"/api/v1/claims/{site.claim.pk}/",
        "/accounts/login/",
        "/admin/",
    ]:
        assert expected in paths


@pytest.mark.sweep
@pytest.mark.parametrize("part", range(SWEEP_PARTS))
def test_it_answers_no_hostile_query_or_form_value_with_a_server_error(
    site: Site, visitor: Visitor, part: int
) -> None:
    for route, values in paths_of_part(site, part):
        path = route.path(values)
        sweep_parameters(visitor, path, "GET", site)
        sweep_parameters(visitor, path, "POST", site)
    visitor.assert_no_server_error()


@pytest.mark.sweep
def test_it_answers_no_hostile_path_value_with_a_server_error(
    site: Site, anonymous_or_member: Visitor
) -> None:
    for route, values in all_paths(site):
        for name in values:
            for hostile in HOSTILE_PATH_VALUES:
                anonymous_or_member.request("GET", route.path({**values, name: hostile}))
    for path in ["/%00", "/%ff/", "/api/v1/%00/", "/static/%00", "/static/%ff.css", "/x" * 1000]:
        anonymous_or_member.request("GET", path)
    anonymous_or_member.assert_no_server_error()


@pytest.mark.sweep
def test_it_answers_no_hostile_header_with_a_server_error(
    site: Site, anonymous_or_member: Visitor
) -> None:
    for route, values in all_paths(site):
        for headers in HOSTILE_HEADERS:
            anonymous_or_member.request("GET", route.path(values), headers=headers)
    anonymous_or_member.assert_no_server_error()


@pytest.mark.sweep
@pytest.mark.parametrize("part", range(SWEEP_PARTS))
def test_it_answers_no_hostile_request_body_with_a_server_error(
    site: Site, visitor: Visitor, part: int
) -> None:
    operations = api_body_properties()
    assert operations, "the schema lists no operation that takes a body"
    for route, values in paths_of_part(site, part):
        path = route.path(values)
        if visitor.request("POST", path, body=b"sweep=1").status_code == 405:
            continue
        for content_type, body in HOSTILE_BODIES:
            visitor.request("POST", path, body=body, content_type=content_type)
        if not route.template.startswith("api/"):
            continue  # only the API reads JSON
        # The schema writes parameters as {pk}, as the template does.
        properties = operations.get(f"POST /{route.template}") or ["researcher", "name"]
        # The other properties valid, so that the hostile one is what the view meets.
        signed_in = getattr(site, visitor.kind, None)
        valid = {
            "researcher": site.coauthor.slug,
            "claimant_name": "Charles Dodgson",
            "statement": "I wrote these papers at Wonderland University.",
            "presented_email": signed_in.email if signed_in else "someone@example.org",
            "evidence_links": ["https://wonderland.example.edu/~charles"],
        }
        for name in properties:
            for value in HOSTILE_JSON_VALUES:
                document = json.dumps({**valid, name: value}).encode()
                visitor.request("POST", path, body=document, content_type="application/json")
    visitor.assert_no_server_error()


@pytest.mark.parametrize(
    "query",
    ["/explore/?researcher=%00", "/explore/?to=%00", "/coi/?q=a%00b", "/search/?q=%00"],
)
def test_it_refuses_a_nul_in_the_query_string_with_a_clear_400(site: Site, query: str) -> None:
    path, _, query_string = query.partition("?")
    response = Client().get(path, QUERY_STRING=query_string)
    assert response.status_code == 400
    assert "NUL" in response.content.decode()


def test_it_refuses_a_query_string_that_decodes_to_nul_in_the_declared_charset(
    site: Site,
) -> None:
    """ "+AAA-" is NUL in UTF-7, and Django decodes the query string in the request's charset."""
    response = Client().get(
        "/explore/", QUERY_STRING="researcher=%2BAAA-", CONTENT_TYPE="text/plain; charset=utf-7"
    )
    assert response.status_code == 400
    assert "NUL" in response.content.decode()


@pytest.mark.parametrize("charset", ["utf-16", "latin-1", "utf8"])
def test_it_refuses_a_form_body_in_another_charset_than_utf8_with_a_400(
    site: Site, charset: str
) -> None:
    client = Client(raise_request_exception=False)
    # The second path answered 500: Django's CSRF check refused the body, then its 400 handler
    # read the body again.
    for path in ["/accounts/login/", f"/researchers/{site.researcher.slug}/follow/"]:
        response = client.post(
            path,
            data=b"login=alice%40example.org&password=x",
            content_type=f"application/x-www-form-urlencoded; charset={charset}",
        )
        assert response.status_code == 400, path
        assert "must be UTF-8 encoded" in response.content.decode()


def test_it_refuses_a_multipart_body_without_a_boundary_even_where_no_route_matches(
    site: Site,
) -> None:
    """Django's 404 handler reads the body to check the CSRF token; it must not raise there."""
    client = Client(raise_request_exception=False)
    for path in ["/api/v1/nothing", "/no/such/page"]:
        response = client.post(path, data=b"--x\r\n", content_type="multipart/form-data")
        assert response.status_code == 400, path
        assert "Invalid boundary" in response.content.decode()


def test_it_refuses_json_nested_deeper_than_the_parser_can_go_with_a_400(site: Site) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(site.member)
    response = client.post("/api/v1/claims/", data=b"[" * 100_000, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": "The JSON body is nested too deeply."}


def test_it_answers_nul_credentials_on_every_api_endpoint_without_a_server_error(
    site: Site,
) -> None:
    """Credentials with a NUL, encoded or not: a refusal with a JSON message, or the header
    ignored by an API that authenticates by session only; never a 500."""
    client = Client(raise_request_exception=False)
    api_paths = [
        route.path(values)
        for route, values in all_paths(site)
        if route.template.startswith("api/v1/")
    ]
    assert len(api_paths) >= 8
    for path in api_paths:
        encoded = client.get(
            path, HTTP_AUTHORIZATION=basic_credentials(b"alice@example.org\x00:password")
        )
        assert encoded.status_code < 500, path
        raw = client.get(path, HTTP_AUTHORIZATION="Basic alice@example.org\x00:password")
        assert raw.status_code == 400, path
        assert raw.json()["detail"].startswith("The request contains a NUL character")


def test_it_answers_a_page_size_of_thousands_of_digits_with_a_400(site: Site) -> None:
    """Python's int() refuses text of more than 4,300 digits with a ValueError."""
    response = Client(raise_request_exception=False).get(
        "/api/v1/works/", QUERY_STRING="page_size=" + "9" * 5_000
    )
    assert response.status_code == 400
    assert response.json() == {"page_size": ["Enter a whole number from 1 to 100."]}
