"""The pages of the claimant's BibTeX upload: alice is the record's approved claimant, bob is
another signed-in member, charlie a visitor. Upload, preview, confirm, limits, escaping, CSRF,
and the profile's link with its queries unchanged."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from ingest.models import ImportIssue, ImportRun
from ingest.services.bibtex_upload import MAX_BYTES
from publications.models import Authorship, Work
from tests.factories import AuthorshipFactory, ResearcherFactory, WorkFactory
from tests.support.people import approved_claimant

pytestmark = pytest.mark.django_db

HOSTILE = b"""@article{evil1,
  title = {<script>alert('t')</script> Attacks <img src=x onerror=alert(1)>},
  author = {Liddell, Alice and Hatter, Mad},
  year = {2020}
}
"""
LINK = "Add works from a BibTeX file"


@pytest.fixture
def record(alice):
    researcher = ResearcherFactory(display_name="Alice Liddell", slug="alice-liddell")
    AuthorshipFactory(researcher=researcher)
    approved_claimant(alice, researcher)
    return researcher


def _urls(record):
    return (
        reverse("ingest:bibtex-upload", args=[record.slug]),
        reverse("ingest:bibtex-upload-confirm", args=[record.slug]),
    )


def _file(content: bytes, name: str = "mine.bib"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, content, content_type="application/x-bibtex")


def _token(response) -> str:
    match = re.search(rb'name="token" value="([^"]+)"', response.content)
    assert match, "the preview carries its token"
    return match.group(1).decode()


def test_the_claimant_gets_the_form(client, alice, record):
    client.force_login(alice)
    response = client.get(_urls(record)[0])
    assert response.status_code == 200
    assert b'enctype="multipart/form-data"' in response.content


def test_the_claimant_previews_then_confirms(client, alice, record, testdata_dir):
    upload, confirm = _urls(record)
    client.force_login(alice)
    raw = (
        testdata_dir / "bibtex/crossref-transform/Burke_2012_10.1073_pnas.1205508109.bib"
    ).read_bytes()
    response = client.post(upload, {"file": _file(HOSTILE + raw)})
    assert response.status_code == 200
    text = response.content.decode()
    assert "New works (1)" in text and "Not added (1)" in text
    assert "None of its authors" in text  # Burke_2012 does not list Alice
    assert Work.objects.filter(title__contains="Attacks").count() == 0

    response = client.post(confirm, {"token": _token(response)})

    assert response.status_code == 302
    assert response["Location"] == reverse("researcher-profile", args=[record.slug])
    work = Work.objects.get(title__contains="Attacks")
    assert Authorship.objects.filter(work=work, researcher=record, position=1).exists()
    run = ImportRun.objects.get(source="bibtex")
    assert run.issues.filter(severity=ImportIssue.Severity.ERROR).count() == 1
    page = client.get(response["Location"]).content.decode()
    assert "1 new work added to your record" in page


def test_titles_are_escaped_in_the_preview_and_on_the_profile(client, alice, record):
    upload, confirm = _urls(record)
    client.force_login(alice)
    response = client.post(upload, {"file": _file(HOSTILE)})
    assert b"<script>alert" not in response.content
    assert b"<img src=x" not in response.content
    assert b"&lt;script&gt;alert" in response.content
    client.post(confirm, {"token": _token(response)})
    profile = client.get(reverse("researcher-profile", args=[record.slug]))
    assert b"<script>alert" not in profile.content
    assert b"<img src=x" not in profile.content
    assert b"&lt;script&gt;alert" in profile.content


def test_a_matched_work_is_named_in_the_preview(client, alice, record):
    work = WorkFactory(doi="10.5555/known", title="Known work")
    client.force_login(alice)
    bib = b"@article{k, title={Known work}, doi={10.5555/KNOWN}, author={Alice Liddell}, year=2020}"
    response = client.post(_urls(record)[0], {"file": _file(bib)})
    text = response.content.decode()
    assert "Matching works already here (1)" in text
    assert reverse("publications:work-detail", args=[work.pk]) in text
    assert "by DOI" in text


def test_uploading_the_same_file_twice_adds_nothing(client, alice, record):
    upload, confirm = _urls(record)
    client.force_login(alice)
    for _ in range(2):
        response = client.post(upload, {"file": _file(HOSTILE)})
        client.post(confirm, {"token": _token(response)})
    assert Work.objects.filter(title__contains="Attacks").count() == 1
    assert (
        "already on your record" in client.post(upload, {"file": _file(HOSTILE)}).content.decode()
    )


@pytest.mark.parametrize("method", ["get", "post"])
def test_another_member_gets_a_404(client, bob, record, method):
    client.force_login(bob)
    for url in _urls(record):
        response = getattr(client, method)(
            url, {"file": _file(HOSTILE)} if method == "post" else {}
        )
        assert response.status_code in (404, 405)
    assert client.post(_urls(record)[0], {"file": _file(HOSTILE)}).status_code == 404
    assert client.post(_urls(record)[1], {"token": "x"}).status_code == 404


def test_another_member_cannot_confirm_the_claimants_preview(client, alice, bob, record):
    client.force_login(alice)
    token = _token(client.post(_urls(record)[0], {"file": _file(HOSTILE)}))
    client.force_login(bob)
    assert client.post(_urls(record)[1], {"token": token}).status_code == 404
    # bob's own record: the token is alice's, for another record.
    bobs = ResearcherFactory(display_name="Bob Bobson", slug="bob-bobson")
    approved_claimant(bob, bobs)
    response = client.post(
        reverse("ingest:bibtex-upload-confirm", args=[bobs.slug]), {"token": token}
    )
    assert response.status_code == 410
    assert Work.objects.filter(title__contains="Attacks").count() == 0


def test_a_visitor_is_sent_to_log_in(client, record):
    upload, confirm = _urls(record)
    for response in (
        client.get(upload),
        client.post(upload, {"file": _file(HOSTILE)}),
        client.post(confirm, {"token": "x"}),
    ):
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("account_login"))
    assert not Work.objects.filter(title__contains="Attacks").exists()


def test_a_claimant_whose_claim_is_not_approved_gets_a_404(client, bob):
    pending = ResearcherFactory(display_name="Bob Bobson", slug="bob-bobson")
    client.force_login(bob)
    assert client.get(reverse("ingest:bibtex-upload", args=[pending.slug])).status_code == 404


def test_wrong_methods_are_refused(client, alice, record):
    upload, confirm = _urls(record)
    client.force_login(alice)
    assert client.put(upload).status_code == 405
    assert client.delete(upload).status_code == 405
    assert client.get(confirm).status_code == 405


def test_posts_without_the_csrf_token_are_refused(alice, record):
    upload, confirm = _urls(record)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.post(upload, {"file": _file(HOSTILE)}).status_code == 403
    assert strict.post(confirm, {"token": "x"}).status_code == 403


@pytest.mark.parametrize(
    ("content", "status", "message"),
    [
        (b"", 400, "The file is empty."),
        (b"just some words, no entries\n", 400, "No BibTeX entries"),
        ("@article{k, title={x}}".encode("utf-16"), 400, "UTF-8 or Latin-1"),
        (b"%" * (MAX_BYTES + 1), 413, "larger than 2 MB"),
    ],
    ids=["empty", "not-bibtex", "utf-16", "too-large"],
)
def test_bad_files_get_a_clear_message(client, alice, record, content, status, message):
    client.force_login(alice)
    response = client.post(_urls(record)[0], {"file": _file(content)})
    assert response.status_code == status
    assert message in response.content.decode()


def test_too_many_entries_get_a_413(client, alice, record, testdata_dir):
    client.force_login(alice)
    path = testdata_dir / "bibtex/better-bibtex/Unabbreviate_on_import_issue1436-1.bib"
    response = client.post(_urls(record)[0], {"file": _file(path.read_bytes())})
    assert response.status_code == 413
    assert "at most 500" in response.content.decode()


def test_no_file_is_a_400(client, alice, record):
    client.force_login(alice)
    assert client.post(_urls(record)[0], {}).status_code == 400


def test_an_expired_or_reused_preview_is_a_410(client, alice, record):
    upload, confirm = _urls(record)
    client.force_login(alice)
    token = _token(client.post(upload, {"file": _file(HOSTILE)}))
    assert client.post(confirm, {"token": token}).status_code == 302
    response = client.post(confirm, {"token": token})
    assert response.status_code == 410
    assert "upload the file again" in response.content.decode()


def test_the_profile_links_to_the_upload_for_its_claimant_only(client, alice, bob, record):
    profile = reverse("researcher-profile", args=[record.slug])
    assert LINK not in client.get(profile).content.decode()
    client.force_login(bob)
    assert LINK not in client.get(profile).content.decode()
    client.force_login(alice)
    page = client.get(profile).content.decode()
    assert LINK in page and reverse("ingest:bibtex-upload", args=[record.slug]) in page


def test_the_link_costs_the_claimants_profile_no_query(
    client, alice, bob, record, django_assert_max_num_queries
):
    profile = reverse("researcher-profile", args=[record.slug])
    client.force_login(bob)
    client.get(profile)
    with django_assert_max_num_queries(40) as others:
        client.get(profile)
    # Counted now: the next request clears the connection's query log.
    others_count = len(others.captured_queries)
    client.force_login(alice)
    client.get(profile)
    with django_assert_max_num_queries(others_count) as claimants:
        assert LINK in client.get(profile).content.decode()
    # The link reads what the identity panel knows already (viewer_is_claimant): no query of its
    # own; the other pages' counts are pinned by tests/researchers/test_profile_page.py.
    assert len(claimants.captured_queries) <= others_count
