"""The arXiv, Crossref and ORCID-facing HTTP clients against a local server answering the
recorded real bodies: rate limit, retries with backoff, and errors as issues."""

from __future__ import annotations

import pytest

from ingest.arxiv.client import ArxivClient
from ingest.crossref.client import CrossrefClient
from ingest.crossref.mapper import map_record
from ingest.polite_http import SourceError, SourceRequestError
from ingest.records import MappingError, Rejected


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_arxiv_waits_three_seconds_between_requests(httpserver, testdata_dir):
    body = (testdata_dir / "arxiv/api/id_astro-ph_0601001.atom.xml").read_bytes()
    httpserver.expect_request("/api/query").respond_with_data(
        body, content_type="application/atom+xml"
    )
    clock = FakeClock()
    client = ArxivClient(base_url=httpserver.url_for("/"), clock=clock, sleep=clock.sleep)
    first = client.query(id_list=("astro-ph/0601001",))
    second = client.query(id_list=("astro-ph/0601001",))
    assert first.entries[0].arxiv_id == second.entries[0].arxiv_id == "astro-ph/0601001"
    assert clock.sleeps == [3.0]


def test_arxiv_answers_a_bad_id_with_an_error_entry(httpserver, testdata_dir):
    body = (testdata_dir / "arxiv/api/id_abc_error_400.atom.xml").read_bytes()
    httpserver.expect_request("/api/query").respond_with_data(
        body, status=400, content_type="application/atom+xml"
    )
    clock = FakeClock()
    feed = ArxivClient(base_url=httpserver.url_for("/"), clock=clock, sleep=clock.sleep).query(
        id_list=("abc",)
    )
    assert feed.errors == ("arXiv API error: incorrect id format for abc",)


def test_a_5xx_is_retried_with_backoff_then_fails_clearly(httpserver):
    httpserver.expect_request("/api/query").respond_with_data("busy", status=503)
    clock = FakeClock()
    client = ArxivClient(
        base_url=httpserver.url_for("/"),
        clock=clock,
        sleep=clock.sleep,
        max_retries=2,
        backoff_seconds=4.0,
    )
    with pytest.raises(SourceError, match="failed after 3 attempts: HTTP 503"):
        client.query(search_query="all:testing")
    assert [s for s in clock.sleeps if s != 3.0] == [4.0, 8.0]


def test_crossref_gives_the_work_and_names_the_datacite_404(httpserver, testdata_dir):
    work_body = (testdata_dir / "crossref/works/hab_work_10.1002_jor.1100150407.json").read_bytes()
    httpserver.expect_request("/works/10.1002/jor.1100150407").respond_with_data(
        work_body, content_type="application/json"
    )
    not_found = (testdata_dir / "crossref/errors/pqa_404_datacite_arxiv_doi.txt").read_bytes()
    httpserver.expect_request("/works/10.48550/arxiv.2312.07559").respond_with_data(
        not_found, status=404
    )
    clock = FakeClock()
    client = CrossrefClient(
        base_url=httpserver.url_for("/"), mailto="dev@example.org", clock=clock, sleep=clock.sleep
    )
    (raw,) = list(client.work_records("https://doi.org/10.1002/JOR.1100150407"))
    (work,) = map_record(raw)
    assert work.doi == "10.1002/jor.1100150407"
    (rejected,) = list(client.work_records("10.48550/arXiv.2312.07559"))
    assert (
        isinstance(rejected, Rejected)
        and "DataCite" in rejected.reason
        and "404" in rejected.reason
    )
    (request, *_rest) = httpserver.log[0]
    assert request.args.get("mailto") == "dev@example.org"
    assert "mailto:dev@example.org" in request.headers["User-Agent"]


def test_crossref_refuses_a_bad_request_at_once(httpserver, testdata_dir):
    body = (testdata_dir / "crossref/errors/hab_400_rows_not_integer.json").read_bytes()
    httpserver.expect_request("/works/10.1/x").respond_with_data(body, status=400)
    clock = FakeClock()
    client = CrossrefClient(
        base_url=httpserver.url_for("/"), mailto="", clock=clock, sleep=clock.sleep
    )
    with pytest.raises(SourceRequestError, match="answered 400"):
        list(client.work_records("10.1/x"))
    assert len(httpserver.log) == 1


def test_an_arxiv_api_error_entry_from_the_reader_is_an_issue(testdata_dir):
    from ingest.arxiv.mapper import map_record as map_arxiv
    from ingest.arxiv.reader import READER

    (raw,) = list(READER.records(testdata_dir / "arxiv/api/id_abc_error_400.atom.xml"))
    with pytest.raises(MappingError, match="incorrect id format for abc"):
        map_arxiv(raw)
    (raw,) = list(READER.records(testdata_dir / "arxiv/api/id_quant-ph_0201082v1.atom.xml"))
    (work,) = map_arxiv(raw)
    assert (work.arxiv_id, work.origin_id, work.type) == (
        "quant-ph/0201082",
        "quant-ph/0201082",
        "preprint",
    )
    assert work.categories == ("quant-ph", "cs.PL")
    assert [v.label for v in work.versions] == ["v1"]
