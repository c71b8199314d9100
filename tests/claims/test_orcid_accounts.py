"""ORCID as a social login and as a connected account (allauth's provider, HTTP faked with
real ORCID v3.0 records), and the sandbox/production setting."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.core import mail
from django.test import Client

from tests.conftest import REPO_ROOT
from tests.support.people import reauthenticated

from .orcid_fake import orcid_record, orcid_sign_in

pytestmark = pytest.mark.django_db


def test_a_user_connects_an_orcid_id_to_the_account(alice_client, alice, orcid_app, testdata_dir):
    record = orcid_record(testdata_dir, "orcid-model_record-full-3.0.json")
    response = orcid_sign_in(reauthenticated(alice_client), record, process="connect")
    assert response.status_code == 302
    account = SocialAccount.objects.get(user=alice, provider="orcid")
    assert account.uid == "0000-0002-7319-2192"
    assert account.extra_data["person"]["name"]["family-name"]["value"] == "releasecandidate1"
    page = alice_client.get("/account/").content.decode()
    assert "0000-0002-7319-2192" in page


def test_signing_up_with_orcid_creates_an_account_whose_email_must_still_be_verified(
    client, orcid_app, testdata_dir
):
    record = orcid_record(testdata_dir, "kbase_sandbox_record_0000-0003-4997-3076.json")
    email = record["person"]["emails"]["email"][0]["email"]
    response = orcid_sign_in(client, record)
    assert response.status_code == 302
    account = SocialAccount.objects.get(provider="orcid", uid="0000-0003-4997-3076")
    user = account.user
    assert user.email == email
    assert user.first_name == "Erik" and user.last_name == "Pearson"
    # ORCID's word about an email is not proof of owning it: a verification mail goes out.
    assert not EmailAddress.objects.get(user=user, email=email).verified
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [email]


def test_an_orcid_login_does_not_take_over_an_account_with_the_same_email(
    orcid_app, testdata_dir, django_user_model
):
    record = orcid_record(testdata_dir, "kbase_sandbox_record_0000-0003-4997-3076.json")
    email = record["person"]["emails"]["email"][0]["email"]
    victim = django_user_model.objects.create_user(
        username="victim", email=email, password="x" * 12
    )
    EmailAddress.objects.create(user=victim, email=email, verified=True, primary=True)
    client = Client()
    orcid_sign_in(client, record)
    assert not SocialAccount.objects.filter(user=victim).exists()
    assert (
        "_auth_user_id" not in client.session or int(client.session["_auth_user_id"]) != victim.pk
    )


@pytest.mark.parametrize(
    ("sandbox", "domain"), [("false", "orcid.org"), ("true", "sandbox.orcid.org")]
)
def test_orcid_sandbox_or_production_is_a_setting(sandbox, domain):
    code = (
        "from allauth.socialaccount.providers.orcid.views import OrcidOAuth2Adapter as A;"
        "print(A.authorize_url, A.access_token_url, A.profile_url)"
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "ORCID_SANDBOX": sandbox,
            "DJANGO_SETTINGS_MODULE": "bzpeer.settings.test",
        },
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1].split() == [
        f"https://{domain}/oauth/authorize",
        f"https://pub.{domain}/oauth/token",
        f"https://pub.{domain}/v3.0/%s/record",
    ]
