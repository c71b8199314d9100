"""Signing in with ORCID where no ORCID keys are configured (the demo, a development copy) is
a 404 page that says so, not a 500; the sign-in page offers ORCID only when it is set up."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.test import Client

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

ORCID_URLS = [
    "/accounts/orcid/login/",
    "/accounts/orcid/login/?process=connect",
    "/accounts/orcid/login/callback/?code=abc&state=xyz",
]


@pytest.fixture
def no_orcid_keys(settings):
    settings.SOCIALACCOUNT_PROVIDERS = {
        "orcid": {"BASE_DOMAIN": "orcid.org", "MEMBER_API": False, "APPS": []}
    }


@pytest.fixture
def orcid_keys(settings):
    settings.SOCIALACCOUNT_PROVIDERS = {
        "orcid": {
            "BASE_DOMAIN": "orcid.org",
            "MEMBER_API": False,
            "APPS": [{"client_id": "APP-TESTCLIENT0000", "secret": "test-secret"}],
        }
    }


def member_client() -> Client:
    alice = UserFactory(email="alice@example.org")
    EmailAddress.objects.create(user=alice, email=alice.email, verified=True, primary=True)
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.force_login(alice)
    return client


@pytest.mark.parametrize("url", ORCID_URLS)
def test_orcid_sign_in_without_keys_is_a_404_page_saying_so(no_orcid_keys, url):
    response = Client(raise_request_exception=False).get(url)

    assert response.status_code == 404
    page = response.content.decode()
    assert "Logging in with ORCID is not available here" in page
    assert 'href="/accounts/login/"' in page


def test_connecting_orcid_without_keys_is_the_same_404_for_a_member(no_orcid_keys):
    client = member_client()
    client.get("/account/")  # sets the CSRF cookie, as the page with the button would
    token = client.cookies["csrftoken"].value

    response = client.post(
        "/accounts/orcid/login/", {"process": "connect", "csrfmiddlewaretoken": token}
    )

    assert response.status_code == 404
    assert "Logging in with ORCID is not available here" in response.content.decode()


def test_a_wrong_method_on_the_orcid_login_is_no_server_error(no_orcid_keys):
    response = Client(raise_request_exception=False).put("/accounts/orcid/login/")

    assert response.status_code < 500


def test_the_sign_in_page_offers_no_orcid_button_without_keys(no_orcid_keys, client):
    page = client.get("/accounts/login/").content.decode()

    assert "/accounts/orcid/login/" not in page


def test_the_sign_in_page_offers_orcid_when_it_is_set_up(orcid_keys, client):
    page = client.get("/accounts/login/").content.decode()

    assert "/accounts/orcid/login/" in page
