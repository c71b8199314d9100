"""ORCID public API v3.0 client (no token: public data only) and the pipeline's `--orcid`
fetcher.

One iD costs one GET /v3.0/{iD}/record (Accept: application/json): the person, every CV
section, fundings and the works as ORCID groups them, but works only as summaries (title,
type, date, identifiers; no contributors, no abstract). The details of the work that maps
(each group's preferred entry) are then read in bulk, GET /v3.0/{iD}/works/{put-code,...}
(ORCID answers up to 100 put-codes at once), and their contributors, short description,
citation and language are added to the summaries, so the answer keeps the /record shape the
reader and mapper already read. A detail that fails leaves its summary as it was.

Rate limit: ORCID's public API allows 24 requests a second per client (burst 40); we stay
under it with one request every 1/24 s, and polite_http retries 429/5xx with backoff.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import Any

import orjson
from django.conf import settings

from ingest.polite_http import PoliteClient
from ingest.records import Rejected

from .fields import as_dict, as_list, normalize_orcid, orcid_checksum_valid, put_code
from .parse import parse_record
from .reader import envelope, error_reason

logger = logging.getLogger(__name__)

ORCID_PUBLIC_API_URL = "https://pub.orcid.org/v3.0"
ORCID_MIN_INTERVAL_SECONDS = 1 / 24
# ORCID reads at most 100 works per bulk request.
BULK_WORKS_LIMIT = 100
# The fields only a full work carries; everything else of the summary stays as it is.
_DETAIL_FIELDS = ("contributors", "short-description", "citation", "language-code", "country")


class OrcidClient(PoliteClient):
    def __init__(self, *, base_url: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("min_interval_seconds", ORCID_MIN_INTERVAL_SECONDS)
        super().__init__(
            source="ORCID",
            base_url=base_url
            or str(getattr(settings, "ORCID_PUBLIC_API_URL", ORCID_PUBLIC_API_URL)),
            headers={"Accept": "application/json"},
            **kwargs,
        )

    def record(self, orcid: str) -> dict[str, Any] | Rejected:
        """The /record answer of one iD, or a Rejected saying why there is none."""
        response = self.get(f"/{orcid}/record", accept_statuses=frozenset({404, 409}))
        try:
            payload = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            payload = None
        if response.status_code == 200 and isinstance(payload, dict):
            return payload
        # 409 is ORCID's answer for a deactivated or locked record.
        reason = (
            error_reason(payload)
            if isinstance(payload, dict)
            else f"ORCID answered {response.status_code}: "
            f"{response.text.strip()[:200] or 'an empty body'}"
        )
        return Rejected(reason=f"no public ORCID record {orcid}: {reason}", external_id=orcid)

    def work_details(self, orcid: str, put_codes: Sequence[int]) -> dict[int, dict[str, Any]]:
        """The full works of put_codes, by put-code; the ones ORCID could not give are absent."""
        details: dict[int, dict[str, Any]] = {}
        for start in range(0, len(put_codes), BULK_WORKS_LIMIT):
            chunk = put_codes[start : start + BULK_WORKS_LIMIT]
            response = self.get(f"/{orcid}/works/{','.join(str(code) for code in chunk)}")
            try:
                payload = orjson.loads(response.content)
            except orjson.JSONDecodeError:
                logger.warning("ORCID %s: bulk works answer is not JSON; summaries kept", orcid)
                continue
            for item in as_list(as_dict(payload).get("bulk")):
                work = as_dict(item).get("work")
                if isinstance(work, dict) and (code := put_code(work)) is not None:
                    details[code] = work
        return details


def with_work_details(record: dict[str, Any], details: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The /record answer with each summary that has details completed by them (a copy)."""
    record = orjson.loads(orjson.dumps(record))
    works = as_dict(as_dict(record.get("activities-summary")).get("works"))
    for group in as_list(works.get("group")):
        for summary in as_list(as_dict(group).get("work-summary")):
            if not isinstance(summary, dict):
                continue
            detail = details.get(put_code(summary) or -1)
            if detail is not None:
                summary.update({name: detail[name] for name in _DETAIL_FIELDS if name in detail})
    return record


def preferred_put_codes(record: dict[str, Any]) -> list[int]:
    """The put-code of each group's preferred work: the only entries the mapper turns into works."""
    return [
        group.preferred.put_code
        for group in parse_record(record).work_groups
        if group.preferred.put_code is not None
    ]


def fetch_record(client: OrcidClient, value: str) -> bytes | Rejected:
    """One iD (bare or as https://orcid.org/...) -> the raw record the mapper reads."""
    orcid = normalize_orcid(value)
    if orcid is None or not orcid_checksum_valid(orcid):
        return Rejected(reason=f"'{value}' is not a valid ORCID iD", external_id=value)
    record = client.record(orcid)
    if isinstance(record, Rejected):
        return record
    put_codes = preferred_put_codes(record)
    if put_codes:
        record = with_work_details(record, client.work_details(orcid, put_codes))
    return envelope(record, orcid=orcid, name=f"ORCID {orcid}")


def fetch_records(values: Sequence[str]) -> Iterator[bytes | Rejected]:
    """The pipeline's fetcher for `--orcid`: one raw record per iD."""
    client = OrcidClient()
    try:
        for value in values:
            yield fetch_record(client, value)
    finally:
        client.close()
