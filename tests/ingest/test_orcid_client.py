"""The ORCID client and the `--orcid` fetcher against a local server answering the recorded
real ORCID bodies (read where they lie): the record, the work details in bulk, the rate
limit, retries, and a missing or malformed iD as an issue with its reason."""

from __future__ import annotations

import json

import orjson
import pytest

from ingest.orcid.client import OrcidClient, fetch_record
from ingest.orcid.mapper import map_record
from ingest.polite_http import SourceError
from ingest.records import (
    CvEntryRecord,
    Rejected,
    ResearcherRecord,
    WorkRecord,
)

KBASE_ORCID = "0000-0003-4997-3076"


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _client(httpserver, clock: FakeClock, **kwargs) -> OrcidClient:
    return OrcidClient(
        base_url=httpserver.url_for("/v3.0"), clock=clock, sleep=clock.sleep, **kwargs
    )


def _serve_kbase_record(httpserver, testdata_dir) -> dict:
    body = (testdata_dir / f"orcid/v3.0/kbase_sandbox_record_{KBASE_ORCID}.json").read_bytes()
    httpserver.expect_request(
        f"/v3.0/{KBASE_ORCID}/record", headers={"Accept": "application/json"}
    ).respond_with_data(body, content_type="application/json")
    return json.loads(body)


def test_an_orcid_id_gives_the_researcher_the_cv_and_the_works_with_their_details(
    httpserver, testdata_dir
):
    record = _serve_kbase_record(httpserver, testdata_dir)
    groups = record["activities-summary"]["works"]["group"]
    first_put_code = groups[0]["work-summary"][0]["put-code"]
    # No recorded bulk answer belongs to this sandbox record: the bulk answer is assembled
    # from the recorded production /work body, given the put-code the record asks for.
    detail = json.loads((testdata_dir / "orcid/v3.0/rorcid_work_77226586_compact.json").read_text())
    detail["put-code"] = first_put_code
    bulk_path = f"/v3.0/{KBASE_ORCID}/works/"
    httpserver.expect_request(
        bulk_path + ",".join(str(code) for code in _preferred(groups))
    ).respond_with_json({"bulk": [{"work": detail}]})
    clock = FakeClock()

    raw = fetch_record(_client(httpserver, clock), f"https://orcid.org/{KBASE_ORCID}")

    assert isinstance(raw, bytes)
    records = map_record(raw)
    (researcher,) = [r for r in records if isinstance(r, ResearcherRecord)]
    assert researcher.orcid == KBASE_ORCID
    cv = [r for r in records if isinstance(r, CvEntryRecord)]
    assert len([c for c in cv if c.entry.section == "employment"]) == 2
    assert all(c.owner_orcid == KBASE_ORCID for c in cv)
    works = [r for r in records if isinstance(r, WorkRecord)]
    assert len(works) == len(groups) == 6
    assert all(w.listed_by is not None and w.listed_by.orcid == KBASE_ORCID for w in works)
    detailed = next(w for w in works if w.origin_id == f"{KBASE_ORCID}:{first_put_code}")
    # The summary's own title and type stay; the contributors come from the details.
    assert detailed.title == groups[0]["work-summary"][0]["title"]["title"]["value"]
    assert len(detailed.authorships) == 4
    assert all(not w.authorships for w in works if w is not detailed)
    # Two requests, the second after ORCID's interval (24 requests a second).
    assert clock.sleeps == [pytest.approx(1 / 24)]


def _preferred(groups: list[dict]) -> list[int]:
    codes = []
    for group in groups:
        summaries = group["work-summary"]
        best = summaries[0]
        for summary in summaries[1:]:
            if int(summary.get("display-index") or 0) > int(best.get("display-index") or 0):
                best = summary
        codes.append(best["put-code"])
    return codes


def test_a_failed_bulk_request_keeps_the_summaries(httpserver, testdata_dir):
    record = _serve_kbase_record(httpserver, testdata_dir)
    httpserver.expect_request(
        f"/v3.0/{KBASE_ORCID}/works/"
        + ",".join(str(c) for c in _preferred(record["activities-summary"]["works"]["group"]))
    ).respond_with_data("not json", content_type="text/plain")
    raw = fetch_record(_client(httpserver, FakeClock()), KBASE_ORCID)
    assert isinstance(raw, bytes)
    works = [r for r in map_record(raw) if isinstance(r, WorkRecord)]
    assert len(works) == 6


def test_an_unknown_orcid_id_is_an_issue_with_orcids_message(httpserver, testdata_dir):
    body = (testdata_dir / "orcid/v3.0/errors/kbase_404.json").read_bytes()
    httpserver.expect_request("/v3.0/0000-0002-1825-0097/record").respond_with_data(
        body, status=404, content_type="application/json"
    )
    rejected = fetch_record(_client(httpserver, FakeClock()), "0000-0002-1825-0097")
    assert isinstance(rejected, Rejected)
    assert rejected.external_id == "0000-0002-1825-0097"
    assert rejected.reason == (
        "no public ORCID record 0000-0002-1825-0097: "
        "ORCID answered 404: 404 Not Found: The resource was not found."
    )


@pytest.mark.parametrize("value", ["0000-0002-1825-0098", "adfafadf", ""])
def test_a_malformed_or_checksum_failing_id_is_rejected_without_a_request(httpserver, value):
    rejected = fetch_record(_client(httpserver, FakeClock()), value)
    assert isinstance(rejected, Rejected)
    assert "is not a valid ORCID iD" in rejected.reason
    assert httpserver.log == []


def test_a_5xx_is_retried_with_backoff_then_fails_clearly(httpserver, testdata_dir):
    body = (testdata_dir / "orcid/v3.0/errors/rorcid_500_search.json").read_bytes()
    httpserver.expect_request(f"/v3.0/{KBASE_ORCID}/record").respond_with_data(
        body, status=500, content_type="application/json"
    )
    clock = FakeClock()
    client = _client(httpserver, clock, max_retries=2, backoff_seconds=1.0)
    with pytest.raises(SourceError, match="failed after 3 attempts: HTTP 500"):
        fetch_record(client, KBASE_ORCID)
    assert [s for s in clock.sleeps if s != pytest.approx(1 / 24)] == [1.0, 2.0]


def test_the_fetched_record_is_the_shape_the_reader_gives(httpserver, testdata_dir):
    _serve_kbase_record(httpserver, testdata_dir)
    httpserver.expect_request(
        f"/v3.0/{KBASE_ORCID}/works/1487805,1537385,1547701,1526002,1489307,1591568"
    ).respond_with_json({"bulk": []})
    raw = fetch_record(_client(httpserver, FakeClock()), KBASE_ORCID)
    assert isinstance(raw, bytes)
    wrapped = orjson.loads(raw)
    assert wrapped["orcid"] == KBASE_ORCID
    assert wrapped["answer"]["orcid-identifier"]["path"] == KBASE_ORCID
