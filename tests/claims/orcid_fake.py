"""ORCID's HTTP faked at the boundary (the `responses` library intercepts `requests`, which
allauth's ORCID provider uses), answering with real ORCID v3.0 records from the shared corpus."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import responses
from django.test import Client
from django.urls import reverse

TOKEN_URL = "https://pub.orcid.org/oauth/token"
RECORD_URL = "https://pub.orcid.org/v3.0/{orcid}/record"


def orcid_record(testdata_dir: Path, name: str) -> dict:
    return json.loads((testdata_dir / "orcid" / "v3.0" / name).read_text())


def orcid_sign_in(client: Client, record: dict, *, process: str = "login") -> object:
    """Run allauth's ORCID OAuth round trip: start, "authorize" at ORCID, come back with a
    code; ORCID's token and record endpoints answer as the real ones do. Returns the final
    response of the callback."""
    orcid = record["orcid-identifier"]["path"]
    start = client.post(reverse("orcid_login") + f"?process={process}")
    assert start.status_code == 302, start
    authorize = urlsplit(start["Location"])
    assert authorize.netloc == "orcid.org" and authorize.path == "/oauth/authorize"
    state = parse_qs(authorize.query)["state"][0]
    with responses.RequestsMock(assert_all_requests_are_fired=True) as fake:
        fake.add(
            responses.POST,
            TOKEN_URL,
            json={
                "access_token": "f5af9f51-07e6-4332-8f1a-c0c11c1e3728",
                "token_type": "bearer",
                "refresh_token": "f725f747-3a65-49f6-a231-3e8944ce464d",
                "expires_in": 631138518,
                "scope": "/authenticate",
                "name": "Test User",
                "orcid": orcid,
            },
        )
        fake.add(responses.GET, RECORD_URL.format(orcid=orcid), json=record)
        return client.get(reverse("orcid_callback"), {"code": "Q70Y3A", "state": state})
