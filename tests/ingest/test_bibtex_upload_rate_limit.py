"""The claimant's BibTeX upload is rate-limited as the other state changes are (claims'
sliding-window limiter): previews and confirms counted per user and per client address (the one
our proxies vouch for), refused with 429, a clear message and Retry-After. The file is a real
one of the shared corpus (Crossref's BibTeX of PNAS 10.1073/pnas.1205508109); the record is
its first author's, John E. Burke's."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from ingest.models import ImportRun
from tests.factories import ResearcherFactory
from tests.support.people import approved_claimant, make_member

pytestmark = pytest.mark.django_db

BIB = "bibtex/crossref-transform/Burke_2012_10.1073_pnas.1205508109.bib"


@pytest.fixture
def alice():
    return make_member("alice@example.org", display_name="John E. Burke")


@pytest.fixture
def bob():
    return make_member("bob@example.org", display_name="Olga Perisic")


def _claimed(member, name: str, slug: str):
    researcher = ResearcherFactory(display_name=name, slug=slug)
    approved_claimant(member, researcher)
    return researcher


@pytest.fixture
def record(alice):
    return _claimed(alice, "John E. Burke", "john-e-burke")


@pytest.fixture
def bib(testdata_dir) -> bytes:
    return (testdata_dir / BIB).read_bytes()


def _upload(client, record, raw: bytes, **extra):
    url = reverse("ingest:bibtex-upload", args=[record.slug])
    return client.post(
        url, {"file": SimpleUploadedFile("pnas.bib", raw, "application/x-bibtex")}, **extra
    )


def _confirm(client, record, token: str, **extra):
    url = reverse("ingest:bibtex-upload-confirm", args=[record.slug])
    return client.post(url, {"token": token}, **extra)


def _token(response) -> str:
    match = re.search(rb'name="token" value="([^"]+)"', response.content)
    assert match, "the preview carries its token"
    return match.group(1).decode()


def _limits(settings, *, upload: str = "100/h", confirm: str = "100/h") -> None:
    settings.CLAIMS_RATE_LIMITS = {
        **settings.CLAIMS_RATE_LIMITS,
        "bibtex_upload": upload,
        "bibtex_confirm": confirm,
    }


def test_previews_over_the_limit_get_a_429_with_a_clear_message(
    settings, client, alice, record, bib
):
    _limits(settings, upload="2/h")
    client.force_login(alice)
    assert [_upload(client, record, bib).status_code for _ in range(2)] == [200, 200]

    refused = _upload(client, record, bib)

    assert refused.status_code == 429
    assert b"Too many BibTeX uploads in a short time" in refused.content
    assert 0 < int(refused["Retry-After"]) <= 3600


def test_confirms_over_the_limit_get_a_429_and_the_preview_can_be_confirmed_later(
    settings, client, alice, record, bib
):
    _limits(settings, confirm="1/h")
    client.force_login(alice)
    assert _confirm(client, record, _token(_upload(client, record, bib))).status_code == 302
    token = _token(_upload(client, record, bib))

    refused = _confirm(client, record, token)

    assert refused.status_code == 429
    assert b"Too many BibTeX imports in a short time" in refused.content
    assert refused["Retry-After"]
    assert ImportRun.objects.count() == 1
    # The refusal came before the kept preview was read: it is still there for later.
    settings.CLAIMS_RATE_LIMITS = {**settings.CLAIMS_RATE_LIMITS, "bibtex_confirm": "5/h"}
    assert _confirm(client, record, token).status_code == 302


def test_the_limit_follows_the_client_address_across_accounts(settings, client, alice, bob, bib):
    """Two accounts behind one address share its count; another address has its own."""
    settings.TRUSTED_PROXY_COUNT = 1
    _limits(settings, upload="2/h")
    alices = _claimed(alice, "John E. Burke", "john-e-burke")
    bobs = _claimed(bob, "Olga Perisic", "olga-perisic")
    same = {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "198.51.100.7"}
    client.force_login(alice)
    assert _upload(client, alices, bib, **same).status_code == 200
    client.force_login(bob)
    assert _upload(client, bobs, bib, **same).status_code == 200

    # A forged entry in front of the address our proxy wrote changes nothing.
    forged = {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "203.0.113.9, 198.51.100.7"}
    assert _upload(client, bobs, bib, **forged).status_code == 429
    other = {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "198.51.100.8"}
    assert _upload(client, bobs, bib, **other).status_code == 200


def test_the_limit_follows_the_user_across_addresses(settings, client, alice, record, bib):
    settings.TRUSTED_PROXY_COUNT = 1
    _limits(settings, upload="2/h")
    client.force_login(alice)
    for address in ("198.51.100.1", "198.51.100.2"):
        response = _upload(
            client, record, bib, REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=address
        )
        assert response.status_code == 200

    refused = _upload(
        client, record, bib, REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.3"
    )

    assert refused.status_code == 429
