"""`manage.py demo_admin` makes a superuser who can sign in to the admin, once."""

from __future__ import annotations

from io import StringIO

import pytest
from allauth.account.models import EmailAddress
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

EMAIL = "admin@bzpeer.invalid"


def demo_admin(email: str = EMAIL, password: str = "first-password") -> str:
    out = StringIO()
    call_command("demo_admin", "--email", email, "--password", password, stdout=out)
    return out.getvalue()


def signs_in(login: str, password: str) -> bool:
    client = Client()
    # The admin is signed in to through the site's login (allauth's limits apply there), which
    # comes back to the admin.
    response = client.post(
        reverse("account_login") + "?next=/admin/", {"login": login, "password": password}
    )
    if response.status_code != 302 or "_auth_user_id" not in client.session:
        return False
    # Staff without two-factor authentication are sent to set it up before the admin.
    admin = client.get("/admin/")
    return admin.status_code == 302 and admin["Location"] == reverse("mfa_activate_totp")


def test_it_creates_a_superuser_who_can_sign_in_to_the_admin(django_user_model):
    demo_admin()
    user = django_user_model.objects.get(email=EMAIL)
    assert user.is_superuser and user.is_staff and user.is_active
    assert signs_in(EMAIL, "first-password")
    assert not signs_in(EMAIL, "wrong-password")


def test_it_gives_the_superuser_a_verified_primary_email(django_user_model):
    demo_admin()
    address = EmailAddress.objects.get(user__email=EMAIL)
    assert address.email == EMAIL
    assert address.verified and address.primary


def test_it_prints_one_line_with_the_login_url_and_the_credentials():
    output = demo_admin()
    assert output.count("\n") == 1
    assert "http://127.0.0.1:8000/admin/" in output
    assert EMAIL in output
    assert "first-password" in output


def test_a_second_call_updates_the_password_without_a_duplicate(django_user_model):
    demo_admin(password="first-password")
    demo_admin(email=EMAIL.upper(), password="second-password")
    assert django_user_model.objects.count() == 1
    assert EmailAddress.objects.count() == 1
    assert signs_in(EMAIL, "second-password")
    assert not signs_in(EMAIL, "first-password")


def test_it_promotes_an_existing_member_with_that_email(django_user_model):
    member = django_user_model.objects.create_user(username="dana", email=EMAIL, password="x")
    demo_admin()
    member.refresh_from_db()
    assert member.is_superuser
    assert django_user_model.objects.count() == 1


def test_it_rejects_an_address_that_is_not_an_email():
    with pytest.raises(CommandError, match="Not an email address"):
        demo_admin(email="not-an-email")
