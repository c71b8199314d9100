"""The claimant's CV: their ORCID record is imported when their claim is approved with their
own connected iD, they refresh it (rate-limited), and they hide and show entries. alice is the
approved claimant, bob the approved claimant of another record, charlie has no record."""

from __future__ import annotations

import json

import pytest
from allauth.socialaccount.models import SocialAccount
from celery import current_app
from django.test import Client
from django.urls import reverse

from claims.services.orcid_import import IMPORT_FETCH_TASK
from ingest.models import ImportRun
from researchers.models import CVEntry
from tests.factories import ResearcherFactory
from tests.support.people import approved_claimant, client_for

pytestmark = pytest.mark.django_db

KBASE_ORCID = "0000-0003-4997-3076"
# The preferred work of each of the kbase record's six groups, as the client asks for them.
KBASE_PREFERRED_PUT_CODES = "1487805,1537385,1547701,1526002,1489307,1591568"


def _entry(researcher, key: str, **fields) -> CVEntry:
    fields.setdefault("section", "employment")
    return CVEntry.objects.create(
        researcher=researcher, source="orcid", source_key=f"{KBASE_ORCID}:{key}", **fields
    )


@pytest.fixture
def alice_record(alice, moderator):
    record = ResearcherFactory(display_name="Erik Pearson", orcid=KBASE_ORCID, slug="erik-pearson")
    approved_claimant(alice, record, moderator=moderator)
    return record


@pytest.fixture
def bob_record(bob, moderator):
    record = ResearcherFactory(display_name="Bob Bobson", slug="bob-bobson")
    approved_claimant(bob, record, moderator=moderator)
    return record


def _serve_kbase_record(orcid_public_api, testdata_dir) -> None:
    body = (testdata_dir / f"orcid/v3.0/kbase_sandbox_record_{KBASE_ORCID}.json").read_bytes()
    orcid_public_api.expect_oneshot_request(f"/v3.0/{KBASE_ORCID}/record").respond_with_data(
        body, content_type="application/json"
    )
    orcid_public_api.expect_oneshot_request(
        f"/v3.0/{KBASE_ORCID}/works/{KBASE_PREFERRED_PUT_CODES}"
    ).respond_with_json({"bulk": []})


def _visibility_url(record, entry) -> str:
    return reverse("claims:cv-entry-visibility", args=[record.slug, entry.pk])


def test_the_import_task_the_claims_app_names_is_registered():
    current_app.loader.import_default_modules()  # as a worker, and _import_fetch_task, do
    assert IMPORT_FETCH_TASK in current_app.tasks


def test_approval_with_the_claimants_own_orcid_imports_their_record(
    alice, moderator, orcid_public_api, testdata_dir, commit
):
    record = ResearcherFactory(display_name="Erik Pearson", orcid=KBASE_ORCID)
    SocialAccount.objects.create(user=alice, provider="orcid", uid=KBASE_ORCID)
    _serve_kbase_record(orcid_public_api, testdata_dir)

    with commit():
        approved_claimant(alice, record, moderator=moderator)

    run = ImportRun.objects.get(source="orcid")
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert run.description == f"orcid: {KBASE_ORCID}"
    employments = CVEntry.objects.filter(researcher=record, section="employment", source="orcid")
    assert employments.count() == 2
    profile = Client().get(reverse("researcher-profile", args=[record.slug])).content.decode()
    assert "Curriculum vitae" in profile and "from ORCID" in profile


def test_approval_without_a_connected_orcid_imports_nothing(alice, moderator, commit):
    record = ResearcherFactory(orcid=KBASE_ORCID)
    with commit():
        approved_claimant(alice, record, moderator=moderator)
    assert not ImportRun.objects.filter(source="orcid").exists()


def test_a_connected_orcid_that_is_not_the_records_imports_nothing(alice, moderator, commit):
    record = ResearcherFactory(orcid=KBASE_ORCID)
    SocialAccount.objects.create(user=alice, provider="orcid", uid="0000-0002-1825-0097")
    with commit():
        approved_claimant(alice, record, moderator=moderator)
    assert not ImportRun.objects.filter(source="orcid").exists()


def test_the_claimant_refreshes_their_orcid_record(
    alice_client, alice_record, orcid_public_api, testdata_dir, commit
):
    _serve_kbase_record(orcid_public_api, testdata_dir)
    with commit():
        response = alice_client.post(reverse("claims:orcid-refresh", args=[alice_record.slug]))
    assert response.status_code == 302
    assert response["Location"].endswith("/edit/#cv-heading")
    run = ImportRun.objects.get(source="orcid")
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert CVEntry.objects.filter(researcher=alice_record).count() >= 2
    page = alice_client.get(response["Location"]).content.decode()
    assert "is being imported" in page


def test_a_refresh_keeps_what_the_claimant_hid(
    alice_client, alice_record, orcid_public_api, testdata_dir, commit
):
    for _ in range(2):
        _serve_kbase_record(orcid_public_api, testdata_dir)
        with commit():
            alice_client.post(reverse("claims:orcid-refresh", args=[alice_record.slug]))
        entry = CVEntry.objects.filter(researcher=alice_record, section="employment").first()
        assert entry is not None
        alice_client.post(_visibility_url(alice_record, entry), {"action": "hide"})
    entries = CVEntry.objects.filter(researcher=alice_record, section="employment")
    assert entries.count() == 2
    assert entries.filter(hidden=True).count() >= 1


def test_refreshes_are_rate_limited(alice_client, alice_record, settings, commit):
    settings.CLAIMS_RATE_LIMITS = {**settings.CLAIMS_RATE_LIMITS, "orcid_refresh": "2/h"}
    url = reverse("claims:orcid-refresh", args=[alice_record.slug])
    with commit():
        for _ in range(2):
            assert alice_client.post(url).status_code == 302
    response = alice_client.post(url, follow=True)
    assert "Too many attempts" in response.content.decode()
    # The two allowed refreshes ran (ORCID's local stand-in answered 404: no record, no CV).
    assert ImportRun.objects.filter(source="orcid").count() == 2


def test_a_record_without_an_orcid_id_has_nothing_to_refresh(bob_client, bob_record):
    response = bob_client.post(reverse("claims:orcid-refresh", args=[bob_record.slug]), follow=True)
    assert "no ORCID iD to refresh from" in response.content.decode()
    assert not ImportRun.objects.exists()
    edit = bob_client.get(reverse("claims:profile-edit", args=[bob_record.slug])).content.decode()
    assert "Refresh from ORCID" not in edit


def test_the_edit_page_lists_the_cv_with_hide_and_show_buttons(alice_client, alice_record):
    _entry(alice_record, "1", organisation="Shown Lab", role="Scientist", start_year=2020)
    _entry(alice_record, "2", organisation="Hidden Corp", hidden=True)

    page = alice_client.get(reverse("claims:profile-edit", args=[alice_record.slug]))

    html = page.content.decode()
    assert page.status_code == 200
    assert "Shown Lab" in html and "Hidden Corp" in html
    assert 'aria-label="Hide from my profile: Shown Lab"' in html
    assert 'aria-label="Show on my profile: Hidden Corp"' in html
    assert f"Refresh from ORCID {KBASE_ORCID}" in html


def test_the_claimant_hides_and_shows_an_entry(alice_client, alice_record):
    entry = _entry(alice_record, "1", organisation="Private Consulting Ltd")
    profile_url = reverse("researcher-profile", args=[alice_record.slug])

    response = alice_client.post(_visibility_url(alice_record, entry), {"action": "hide"})
    assert response.status_code == 302
    entry.refresh_from_db()
    assert entry.hidden
    assert "Private Consulting Ltd" not in Client().get(profile_url).content.decode()

    alice_client.post(_visibility_url(alice_record, entry), {"action": "show"})
    entry.refresh_from_db()
    assert not entry.hidden
    assert "Private Consulting Ltd" in Client().get(profile_url).content.decode()


def test_bob_cannot_hide_alices_entries_through_his_own_record_or_hers(
    bob_client, alice_record, bob_record
):
    entry = _entry(alice_record, "1", organisation="Alice's Lab")
    for slug in (alice_record.slug, bob_record.slug):
        url = reverse("claims:cv-entry-visibility", args=[slug, entry.pk])
        assert bob_client.post(url, {"action": "hide"}).status_code == 404
    assert (
        bob_client.post(reverse("claims:orcid-refresh", args=[alice_record.slug])).status_code
        == 404
    )
    entry.refresh_from_db()
    assert not entry.hidden
    assert not ImportRun.objects.exists()


def test_charlie_and_visitors_have_no_access(charlie, alice_record):
    entry = _entry(alice_record, "1", organisation="Alice's Lab")
    charlie_client = client_for(charlie)
    url = _visibility_url(alice_record, entry)
    refresh = reverse("claims:orcid-refresh", args=[alice_record.slug])
    assert charlie_client.post(url, {"action": "hide"}).status_code == 404
    assert charlie_client.post(refresh).status_code == 404
    visitor = Client()
    assert visitor.post(url, {"action": "hide"}).status_code == 302  # to the login page
    assert "/login/" in visitor.post(refresh)["Location"]
    entry.refresh_from_db()
    assert not entry.hidden


def test_the_cv_views_take_post_only(alice_client, alice_record):
    entry = _entry(alice_record, "1", organisation="Lab")
    assert alice_client.get(_visibility_url(alice_record, entry)).status_code == 405
    assert (
        alice_client.get(reverse("claims:orcid-refresh", args=[alice_record.slug])).status_code
        == 405
    )


def test_an_unknown_action_or_entry_is_refused(alice_client, alice_record):
    entry = _entry(alice_record, "1", organisation="Lab")
    url = _visibility_url(alice_record, entry)
    assert alice_client.post(url, {"action": "delete"}).status_code == 400
    missing = reverse("claims:cv-entry-visibility", args=[alice_record.slug, entry.pk + 1000])
    assert alice_client.post(missing, {"action": "hide"}).status_code == 404


def test_hiding_needs_the_csrf_token(alice, alice_record):
    entry = _entry(alice_record, "1", organisation="Lab")
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(_visibility_url(alice_record, entry), {"action": "hide"}).status_code == 403
    entry.refresh_from_db()
    assert not entry.hidden


def test_entry_text_is_escaped_on_the_edit_page(alice_client, alice_record):
    _entry(alice_record, "1", organisation="<img src=x onerror=alert(1)>")
    html = alice_client.get(reverse("claims:profile-edit", args=[alice_record.slug])).content
    assert b"<img src=x" not in html
    assert json.dumps("&lt;img src=x onerror=alert(1)&gt;")[1:-1].encode() in html
