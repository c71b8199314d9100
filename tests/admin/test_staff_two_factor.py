"""Staff reach the admin only with two-factor authentication on (issue 28, item 7).

bzpeer.middleware.StaffTwoFactorMiddleware sends a staff member without an authenticator to
allauth's TOTP set-up; once it is on (and the session passed the code), the admin opens.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import UserFactory
from tests.support.people import client_for, make_member, reauthenticated, totp_code

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # noqa: S105 (UserFactory's)


@pytest.fixture
def staff_without_two_factor():
    user = UserFactory(email="newstaff@example.org", is_staff=True, is_superuser=True)
    from allauth.account.models import EmailAddress

    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


def test_staff_without_two_factor_are_sent_to_set_it_up(staff_without_two_factor):
    client = client_for(staff_without_two_factor)
    for url in (reverse("admin:index"), reverse("admin:users_user_changelist")):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"] == reverse("mfa_activate_totp")
    page = client.get(reverse("mfa_activate_totp"), follow=True).content.decode()
    assert "two-factor authentication before they reach the admin" in page


def test_setting_up_two_factor_opens_the_admin(staff_without_two_factor):
    client = reauthenticated(client_for(staff_without_two_factor))
    page = client.get(reverse("mfa_activate_totp")).content.decode()
    secret = re.search(r'value="([A-Z2-7]{16,})"', page) or re.search(r"\b([A-Z2-7]{32})\b", page)
    assert secret is not None, page
    response = client.post(reverse("mfa_activate_totp"), {"code": totp_code(secret.group(1))})
    assert response.status_code == 302
    assert client.get(reverse("admin:index")).status_code == 200


def test_members_are_not_asked_for_two_factor(alice_client):
    # Optional for members: the account pages work without it, the admin is not theirs.
    assert alice_client.get(reverse("claims:account")).status_code == 200
    assert alice_client.get(reverse("mfa_index")).status_code == 200


def test_staff_with_two_factor_sign_in_with_the_password_and_a_code():
    staff = make_member("staff2@example.org", is_staff=True, is_superuser=True)
    from allauth.mfa.models import Authenticator

    assert Authenticator.objects.filter(user=staff, type="totp").exists()
    client = Client()
    response = client.post(
        reverse("account_login") + "?next=/admin/", {"login": staff.email, "password": PASSWORD}
    )
    assert response["Location"] == reverse("mfa_authenticate")
    assert client.get(reverse("admin:index")).status_code == 302


@pytest.mark.parametrize(("steps_back", "signs_in"), [(0, True), (1, True), (3, False)])
def test_a_code_of_the_step_before_still_signs_in_an_older_one_does_not(steps_back, signs_in):
    # A code typed as the phone's 30-second step turns over is good; one from a minute and a
    # half ago is not, and a code is good once.
    staff = make_member("staff3@example.org", is_staff=True, is_superuser=True)
    client = Client()
    client.post(reverse("account_login"), {"login": staff.email, "password": PASSWORD})
    code = totp_code(staff.totp_secret, steps_back=steps_back)
    response = client.post(reverse("mfa_authenticate"), {"code": code})
    assert (response.status_code == 302) is signs_in
    assert (client.get(reverse("admin:index")).status_code == 200) is signs_in
    if signs_in:
        again = Client()
        again.post(reverse("account_login"), {"login": staff.email, "password": PASSWORD})
        assert again.post(reverse("mfa_authenticate"), {"code": code}).status_code == 200
        assert again.get(reverse("admin:index")).status_code == 302
