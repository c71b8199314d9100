"""One client address for every limit: bzpeer.http.client_address believes X-Forwarded-For only
as far as TRUSTED_PROXY_COUNT proxies of ours wrote it, and the API throttle and allauth's login
limits both key on it."""

from __future__ import annotations

import pytest
from allauth.account.adapter import get_adapter
from allauth.account.models import EmailAddress
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils.module_loading import import_string
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from bzpeer.http import client_address
from bzpeer.settings import base as base_settings
from tests.factories import UserFactory

API_URL = "/api/v1/researchers/"


def request_from(remote_addr: str, forwarded_for: str | None = None):
    headers = {"HTTP_X_FORWARDED_FOR": forwarded_for} if forwarded_for is not None else {}
    return RequestFactory().get("/", REMOTE_ADDR=remote_addr, **headers)


def test_it_is_the_peer_address_when_no_proxy_is_trusted(settings):
    settings.TRUSTED_PROXY_COUNT = 0
    assert client_address(request_from("203.0.113.9", "198.51.100.1")) == "203.0.113.9"


def test_it_is_the_address_our_proxy_appended_behind_one_proxy(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    request = request_from("10.0.0.2", "1.2.3.4, 198.51.100.7")
    assert client_address(request) == "198.51.100.7"


def test_it_counts_our_proxies_from_the_right(settings):
    settings.TRUSTED_PROXY_COUNT = 2
    request = request_from("10.0.0.3", "forged, 198.51.100.7 ,10.0.0.2")
    assert client_address(request) == "198.51.100.7"


@pytest.mark.parametrize("forwarded_for", [None, "", "198.51.100.7"])
def test_it_falls_back_to_the_peer_when_the_header_is_shorter_than_the_proxies(
    settings, forwarded_for
):
    settings.TRUSTED_PROXY_COUNT = 2
    assert client_address(request_from("10.0.0.3", forwarded_for)) == "10.0.0.3"


@pytest.mark.parametrize("entry", ["not-an-address", "1.2.3.4\x00", "999.1.1.1", "'; DROP"])
def test_it_falls_back_to_the_peer_when_the_entry_is_not_an_address(settings, entry):
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_address(request_from("10.0.0.2", entry)) == "10.0.0.2"


@pytest.mark.parametrize("proxies", [0, 1, 2])
@pytest.mark.parametrize("forwarded_for", [None, "198.51.100.7", "1.1.1.1, 198.51.100.7, 10.0.0.2"])
def test_the_api_throttle_and_allauth_see_the_same_address_as_the_helper(
    settings, proxies, forwarded_for
):
    settings.TRUSTED_PROXY_COUNT = proxies
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": proxies}
    request = request_from("10.0.0.9", forwarded_for)
    throttle_class = import_string(base_settings.REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"][0])
    expected = client_address(request)
    assert throttle_class().get_ident(Request(request)) == expected
    assert get_adapter(request).get_client_ip(request) == expected


@pytest.fixture
def api_throttle(settings, monkeypatch):
    """The API throttle of the production settings (the test settings turn it off), at 5 a
    minute. DRF copies DEFAULT_THROTTLE_CLASSES onto APIView, and the rates onto the throttle
    class, when they are imported, so those class attributes are set here as well."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_CLASSES": base_settings.REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"],
        "DEFAULT_THROTTLE_RATES": {"anon": "5/min"},
    }
    monkeypatch.setattr(APIView, "throttle_classes", api_settings.DEFAULT_THROTTLE_CLASSES)
    monkeypatch.setattr(
        api_settings.DEFAULT_THROTTLE_CLASSES[0], "THROTTLE_RATES", {"anon": "5/min"}
    )


@pytest.mark.django_db
def test_forged_forwarded_headers_do_not_escape_the_api_throttle(settings, api_throttle):
    settings.TRUSTED_PROXY_COUNT = 0
    client = Client()
    codes = [
        client.get(API_URL, HTTP_X_FORWARDED_FOR=f"198.51.100.{index}").status_code
        for index in range(8)
    ]
    assert codes == [200] * 5 + [429] * 3


@pytest.mark.django_db
def test_behind_one_proxy_two_clients_have_separate_api_budgets(settings, api_throttle):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    client = Client(REMOTE_ADDR="10.0.0.2")
    first = [client.get(API_URL, HTTP_X_FORWARDED_FOR="198.51.100.1").status_code for _ in range(6)]
    # A forged entry to the left of what our proxy appended changes nothing.
    second = [
        client.get(API_URL, HTTP_X_FORWARDED_FOR=f"{index}.0.0.1, 198.51.100.2").status_code
        for index in range(1, 7)
    ]
    assert first == [200] * 5 + [429]
    assert second == [200] * 5 + [429]


def failed_logins(client: Client, count: int, **headers) -> list[str]:
    """`count` wrong passwords, each for a different account (so only the per-address limit
    can trip); the pages answered."""
    return [
        client.post(
            reverse("account_login"),
            {"login": f"nobody{index}@example.org", "password": "wrong password"},
            **headers,
        ).content.decode()
        for index in range(count)
    ]


def signs_in(client: Client, user, **headers) -> bool:
    client.post(
        reverse("account_login"),
        {"login": user.email, "password": "correct horse battery staple"},
        **headers,
    )
    return "_auth_user_id" in client.session


@pytest.fixture
def member(db):
    user = UserFactory(email="member@example.org")
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


def test_forged_forwarded_headers_do_not_escape_the_login_limit(settings, member):
    settings.TRUSTED_PROXY_COUNT = 0
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "login_failed": "3/m/ip"}
    client = Client()
    pages = [
        page
        for index in range(4)
        for page in failed_logins(client, 1, HTTP_X_FORWARDED_FOR=f"198.51.100.{index}")
    ]
    assert "Too many failed login attempts" in pages[3]
    assert not signs_in(client, member, HTTP_X_FORWARDED_FOR="198.51.100.200")


def test_behind_one_proxy_one_client_cannot_lock_another_out_of_signing_in(settings, member):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "login_failed": "3/m/ip"}
    # Both come through our proxy at 10.0.0.2.
    attacker, visitor = Client(REMOTE_ADDR="10.0.0.2"), Client(REMOTE_ADDR="10.0.0.2")
    pages = failed_logins(attacker, 4, HTTP_X_FORWARDED_FOR="198.51.100.66")
    assert "Too many failed login attempts" in pages[3]
    assert signs_in(visitor, member, HTTP_X_FORWARDED_FOR="198.51.100.1")
