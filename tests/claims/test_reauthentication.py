"""What cannot be undone asks for the password again (issue 28, item 8): deleting the account,
releasing a claim, changing the email or the password, turning two-factor authentication off.

allauth's reauthentication: a session that has not confirmed its password in the last five
minutes is sent to /accounts/reauthenticate/; after the password, allauth replays the POST.
"""

from __future__ import annotations

import pytest
from allauth.mfa.models import Authenticator
from django.contrib.auth import get_user_model
from django.urls import reverse

from claims.models import ClaimStatus
from tests.support.people import client_for, reauthenticated, submit, two_factor_on

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # noqa: S105 (UserFactory's)
REAUTHENTICATE = reverse("account_reauthenticate")
DELETE = reverse("collaboration:account-delete")


def asks_for_the_password(response) -> bool:
    return response.status_code == 302 and response["Location"].startswith(REAUTHENTICATE)


def test_deleting_the_account_asks_for_the_password_then_goes_ahead(alice):
    client = client_for(alice)
    assert client.get(DELETE).status_code == 200  # the page itself is shown
    response = client.post(DELETE, {"email": alice.email})
    assert asks_for_the_password(response)
    assert get_user_model().objects.filter(pk=alice.pk).exists()
    # The password, and allauth replays the deletion.
    response = client.post(response["Location"], {"password": PASSWORD})
    assert response.status_code == 302
    assert not get_user_model().objects.filter(pk=alice.pk).exists()


def test_a_wrong_password_deletes_nothing(alice):
    client = client_for(alice)
    response = client.post(DELETE, {"email": alice.email})
    page = client.post(response["Location"], {"password": "not it"})
    assert page.status_code == 200
    assert get_user_model().objects.filter(pk=alice.pk).exists()


def test_releasing_a_claim_asks_for_the_password(alice, record):
    claim = submit(alice, record)
    client = client_for(alice)
    response = client.post(reverse("claims:claim-withdraw", args=[claim.pk]))
    assert asks_for_the_password(response)
    claim.refresh_from_db()
    assert claim.status != ClaimStatus.WITHDRAWN
    client.post(response["Location"], {"password": PASSWORD})
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.WITHDRAWN


def test_another_users_claim_is_a_404_before_any_password(alice, bob, record):
    claim = submit(alice, record)
    response = client_for(bob).post(reverse("claims:claim-withdraw", args=[claim.pk]))
    assert response.status_code == 404


def test_the_api_refuses_a_withdrawal_without_a_recent_password(alice, record):
    claim = submit(alice, record)
    response = client_for(alice).post(reverse("api:claim-withdraw", args=[claim.pk]))
    assert response.status_code == 403
    assert REAUTHENTICATE in response.json()["detail"]
    claim.refresh_from_db()
    assert claim.status != ClaimStatus.WITHDRAWN


def test_changing_the_email_asks_for_the_password(alice):
    client = client_for(alice)
    added = client.post(reverse("account_email"), {"action_add": "", "email": "a@wonderland.edu"})
    assert asks_for_the_password(added)
    assert not alice.emailaddress_set.filter(email="a@wonderland.edu").exists()


def test_changing_the_password_takes_the_current_one(alice):
    # allauth's form asks for the current password itself: that is its reauthentication.
    client = client_for(alice)
    client.post(
        reverse("account_change_password"),
        {"oldpassword": "not it", "password1": "a-new-long-pass", "password2": "a-new-long-pass"},
    )
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


def test_turning_two_factor_off_asks_for_the_password_first(alice):
    two_factor_on(alice)
    client = client_for(alice)
    response = client.post(reverse("mfa_deactivate_totp"))
    assert asks_for_the_password(response)
    assert Authenticator.objects.filter(user=alice, type="totp").exists()
    reauthenticated(client).post(reverse("mfa_deactivate_totp"))
    assert not Authenticator.objects.filter(user=alice, type="totp").exists()
