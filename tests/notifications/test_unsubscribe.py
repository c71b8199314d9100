"""The unsubscribe endpoint: RFC 8058's one-click POST works without cookies or a login and
answers 200; a GET only asks (mail scanners follow links); the confirmation form is
CSRF-checked; a tampered token is a 400 and an account that is gone a 404, never a 500."""

from __future__ import annotations

import pytest
from django.core import signing
from django.test import Client

from notifications import services
from notifications.kinds import DAILY_DIGEST_SCOPE, Delivery, NotificationCategory
from notifications.models import NotificationPreference
from notifications.selectors import deliveries_for, delivery_for

from .conftest import only_notifying

pytestmark = pytest.mark.django_db

CLAIMS = NotificationCategory.CLAIMS
ONE_CLICK = "List-Unsubscribe=One-Click"


def link_path(user, category=CLAIMS) -> str:
    url = services.unsubscribe_url(user=user, category=category)
    return url.removeprefix("https://bzpeer.example")


def one_click(path: str):
    """What a mail provider sends: a fresh client, no cookies, CSRF enforced as in production."""
    client = Client(enforce_csrf_checks=True)
    return client.post(path, ONE_CLICK, content_type="application/x-www-form-urlencoded")


def test_the_one_click_post_without_cookies_turns_the_category_off(alice):
    response = one_click(link_path(alice))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    assert "unsubscribed" in response.content.decode()
    assert delivery_for(user=alice, category=CLAIMS) == Delivery.OFF
    # Only that category.
    assert delivery_for(user=alice, category=NotificationCategory.MESSAGES) == Delivery.IMMEDIATELY
    # The answer sets no cookie (no session, no CSRF token, no message).
    assert not response.cookies


def test_the_one_click_post_also_works_as_multipart(alice):
    client = Client(enforce_csrf_checks=True)
    response = client.post(link_path(alice), {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert delivery_for(user=alice, category=CLAIMS) == Delivery.OFF


def test_a_second_one_click_post_is_still_a_200(alice):
    assert one_click(link_path(alice)).status_code == 200
    assert one_click(link_path(alice)).status_code == 200
    assert NotificationPreference.objects.filter(user=alice).count() == 1


def test_a_get_only_asks_and_changes_nothing(alice):
    response = Client().get(link_path(alice))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Unsubscribe?" in page and "Claims, reports and record changes" in page
    assert 'name="csrfmiddlewaretoken"' in page and 'method="post"' in page
    assert alice.email not in page  # whoever holds the link does not learn the address
    assert not NotificationPreference.objects.exists()
    assert Client().head(link_path(alice)).status_code == 200
    assert not NotificationPreference.objects.exists()


def test_the_confirmation_form_turns_the_category_off(alice):
    client = Client(enforce_csrf_checks=True)
    path = link_path(alice)
    page = client.get(path)
    token = page.context["csrf_token"]
    response = client.post(path, {"csrfmiddlewaretoken": str(token)})
    assert response.status_code == 200
    assert "You are unsubscribed" in response.content.decode()
    assert delivery_for(user=alice, category=CLAIMS) == Delivery.OFF


def test_the_confirmation_form_needs_its_csrf_token(alice):
    client = Client(enforce_csrf_checks=True)
    assert client.post(link_path(alice), {}).status_code == 403
    assert not NotificationPreference.objects.exists()


def test_a_body_other_than_the_exact_one_click_one_needs_a_csrf_token(alice):
    client = Client(enforce_csrf_checks=True)
    for body in (
        {"List-Unsubscribe": "One-Click", "extra": "1"},
        {"List-Unsubscribe": "one-click"},
        {"List-Unsubscribe": ["One-Click", "One-Click"]},
    ):
        assert client.post(link_path(alice), body).status_code == 403
    assert not NotificationPreference.objects.exists()


@pytest.mark.parametrize(
    "token",
    ["nonsense", "W1sxLCJjbGFpbXMiXQ:forged-signature", "a" * 300, "..", "x:y:z"],
)
def test_a_tampered_or_malformed_token_is_a_400_with_a_message(alice, token):
    path = f"/notifications/unsubscribe/{token}/"
    response = Client().get(path)
    assert response.status_code == 400
    assert "damaged" in response.content.decode()
    response = one_click(path)
    assert response.status_code == 400 and "damaged" in response.content.decode()
    assert not NotificationPreference.objects.exists()


def test_a_token_altered_by_one_character_is_a_400(alice):
    path = link_path(alice)
    token = path.rstrip("/").rsplit("/", 1)[1]
    altered = token[:-1] + ("A" if token[-1] != "A" else "B")
    assert one_click(f"/notifications/unsubscribe/{altered}/").status_code == 400
    assert not NotificationPreference.objects.exists()


def test_a_token_of_a_deleted_account_is_a_404_with_a_message(alice):
    path = link_path(alice)
    alice.delete()
    response = Client().get(path)
    assert response.status_code == 404 and "no longer exists" in response.content.decode()
    response = one_click(path)
    assert response.status_code == 404 and "no longer exists" in response.content.decode()


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_other_methods_are_refused(alice, method):
    response = getattr(Client(), method)(link_path(alice))
    assert response.status_code == 405
    assert not NotificationPreference.objects.exists()


def test_the_digest_link_turns_off_every_category_sent_in_the_digest(alice):
    services.notification_preferences_set(
        user=alice,
        deliveries={"claims": Delivery.DAILY, "messages": Delivery.DAILY},
    )
    assert one_click(link_path(alice, DAILY_DIGEST_SCOPE)).status_code == 200
    assert only_notifying(deliveries_for(alice)) == {
        "claims": "off",
        "messages": "off",
        "invitations": "immediately",
    }


def test_one_users_link_changes_only_that_users_choice(alice, bob, charlie):
    one_click(link_path(alice))
    assert delivery_for(user=bob, category=CLAIMS) == Delivery.IMMEDIATELY
    assert delivery_for(user=charlie, category=CLAIMS) == Delivery.IMMEDIATELY


def test_the_link_in_a_real_email_unsubscribes(alice, commit):
    from django.core import mail

    with commit():
        services.notification_create(
            user=alice, category=CLAIMS, kind="claim_approved", subject="s", message="m"
        )
    header = mail.outbox[0].extra_headers["List-Unsubscribe"]
    path = header.strip("<>").removeprefix("https://bzpeer.example")
    assert one_click(path).status_code == 200
    assert delivery_for(user=alice, category=CLAIMS) == Delivery.OFF


def test_a_link_reveals_nothing_about_whose_it_is(alice):
    """Issue 28, item 10: no user id, no address, nothing the same for two people's links."""
    token = link_path(alice).rstrip("/").rsplit("/", 1)[1]
    payload = signing.b64_decode(token.split(":", 1)[0].encode()).decode()
    assert str(alice.pk) not in payload.replace(alice.email_link_key.hex, "")
    assert alice.email not in payload and alice.email.split("@")[0] not in payload
    assert alice.email_link_key.hex in payload  # random, and renewed with the password


def test_a_new_password_ends_every_link_sent_before(alice, bob):
    old, bobs = link_path(alice), link_path(bob)
    alice.set_password("a new password, long enough")
    alice.save()

    response = one_click(old)
    assert response.status_code == 404 and "renewed" in response.content.decode()
    assert one_click(link_path(alice)).status_code == 200
    assert one_click(bobs).status_code == 200  # nobody else's
