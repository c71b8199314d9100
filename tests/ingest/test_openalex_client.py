"""The OpenAlex API client against a real local HTTP server replaying recorded OpenAlex responses."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from werkzeug import Response

from ingest.openalex.client import (
    OpenAlexClient,
    OpenAlexError,
    OpenAlexRequestError,
)

NEXT_CURSOR = "IlsxMDAuMCwgMjkyMTAsICdodHRwczovL29wZW5hbGV4Lm9yZy9XMzAwMTg5NzA1NSddIg=="


@pytest.fixture
def recorded(testdata_dir: Path):
    def body(relative: str) -> str:
        return (testdata_dir / "openalex/api" / relative).read_text(encoding="utf-8")

    return body


def _client(httpserver, **options) -> OpenAlexClient:
    options.setdefault("sleep", lambda seconds: None)
    return OpenAlexClient(
        base_url=httpserver.url_for(""), mailto="bzpeer-tests@example.org", **options
    )


def test_it_follows_the_cursor_until_an_empty_last_page(httpserver, recorded):
    first = {
        "filter": "publication_year:2020",
        "per-page": "200",
        "cursor": "*",
        "mailto": "bzpeer-tests@example.org",
    }
    httpserver.expect_ordered_request("/works", query_string=first).respond_with_data(
        recorded("works/rh_works_cursor_page_covid19.json"), content_type="application/json"
    )
    httpserver.expect_ordered_request(
        "/works", query_string={**first, "cursor": NEXT_CURSOR}
    ).respond_with_data(
        recorded("works/oap_cursor_last_page_empty.json"), content_type="application/json"
    )

    with _client(httpserver) as client:
        works = list(client.iter_works("publication_year:2020"))

    assert [w["id"] for w in works] == [
        "https://openalex.org/W3001118548",
        "https://openalex.org/W3008827533",
        "https://openalex.org/W3001897055",
    ]
    httpserver.check_assertions()


def test_an_empty_result_set_yields_nothing(httpserver, recorded):
    httpserver.expect_request("/works").respond_with_data(
        recorded("works/rh_works_empty_page.json"), content_type="application/json"
    )

    with _client(httpserver) as client:
        assert list(client.iter_works("doi:10.0/none")) == []


def test_a_400_raises_at_once_with_the_message_openalex_sent(httpserver, recorded):
    httpserver.expect_request("/works").respond_with_data(
        recorded("errors/oap_400_invalid_filter.json"), status=400, content_type="application/json"
    )
    slept: list[float] = []

    with (
        _client(httpserver, sleep=slept.append) as client,
        pytest.raises(OpenAlexRequestError) as error,
    ):
        list(client.iter_works("DOESNTEXIST:1"))

    assert error.value.status_code == 400
    assert error.value.message.startswith("DOESNTEXIST is not a valid field.")
    assert slept == []  # the caller's mistake is not retried
    assert len(httpserver.log) == 1


def test_it_retries_a_429_after_the_delay_the_server_asks_for(httpserver, recorded):
    httpserver.expect_ordered_request("/works").respond_with_response(
        Response("slow down", status=429, headers={"Retry-After": "3"})
    )
    httpserver.expect_ordered_request("/works").respond_with_data(
        recorded("works/rh_works_empty_page.json"), content_type="application/json"
    )
    slept: list[float] = []

    with _client(httpserver, sleep=slept.append) as client:
        assert list(client.iter_works("x:1")) == []

    assert slept == [3.0]


def test_it_backs_off_exponentially_on_server_errors_and_then_gives_up(httpserver):
    httpserver.expect_request("/works").respond_with_data("upstream down", status=503)
    slept: list[float] = []

    with _client(httpserver, sleep=slept.append, max_retries=3, backoff_seconds=0.5) as client:
        with pytest.raises(OpenAlexError, match="failed after 4 attempts: HTTP 503"):
            list(client.iter_works("x:1"))

    assert slept == [0.5, 1.0, 2.0]
    assert len(httpserver.log) == 4


def test_a_timeout_is_retried_and_reported(httpserver):
    def too_slow(request):
        time.sleep(0.5)
        return Response("{}", content_type="application/json")

    httpserver.expect_request("/works").respond_with_handler(too_slow)

    with _client(httpserver, timeout=0.1, max_retries=1) as client:
        with pytest.raises(OpenAlexError, match="ReadTimeout"):
            list(client.iter_works("x:1"))
