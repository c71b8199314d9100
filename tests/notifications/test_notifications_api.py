"""GET and PATCH /api/v1/account/notifications/: one field per category, signed-in only,
CSRF-checked for a session, 400 with a message on a bad value, in the OpenAPI schema."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from notifications.kinds import NotificationCategory
from notifications.models import NotificationPreference
from notifications.selectors import deliveries_for

from .conftest import only_notifying

pytestmark = pytest.mark.django_db

URL = "/api/v1/account/notifications/"


def patch(client, body):
    return client.patch(URL, body, content_type="application/json")


def test_the_route_is_named_in_the_api_namespace():
    assert reverse("api:notification-preferences") == URL


def test_anonymous_visitors_get_a_403(client):
    assert client.get(URL).status_code == 403
    assert patch(client, {"claims": "off"}).status_code == 403
    assert not NotificationPreference.objects.exists()


def test_get_answers_every_category_with_its_default(alice_client):
    response = alice_client.get(URL)
    assert response.status_code == 200
    assert set(response.json()) == set(NotificationCategory.values)
    assert only_notifying(response.json()) == {
        "claims": "immediately",
        "invitations": "immediately",
        "messages": "immediately",
    }


def test_patch_changes_the_categories_given_and_answers_all(alice_client, alice, bob_client):
    response = patch(alice_client, {"messages": "daily", "invitations": "off"})
    assert response.status_code == 200
    assert only_notifying(response.json()) == {
        "claims": "immediately",
        "invitations": "off",
        "messages": "daily",
    }
    assert deliveries_for(alice)["messages"] == "daily"
    # Bob's stay his own.
    assert bob_client.get(URL).json()["messages"] == "immediately"


def test_an_empty_patch_changes_nothing(alice_client):
    response = patch(alice_client, {})
    assert response.status_code == 200
    assert set(only_notifying(response.json()).values()) == {"immediately"}
    assert not NotificationPreference.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {"claims": "weekly"},
        {"claims": ""},
        {"claims": None},
        {"claims": ["off"]},
        {"feed": "daily"},
        {"claims": "off", "nonsense": "x"},
        ["claims", "off"],
        "off",
    ],
)
def test_a_bad_value_is_a_400_with_a_message_and_changes_nothing(alice_client, body):
    response = patch(alice_client, body)
    assert response.status_code == 400
    assert response.json()  # a message, per field or for the whole input
    assert not NotificationPreference.objects.exists()


def test_patch_needs_the_csrf_token_of_the_session(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.get(URL).status_code == 200
    assert patch(client, {"claims": "off"}).status_code == 403
    assert not NotificationPreference.objects.exists()


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_other_methods_are_a_405(alice_client, method):
    response = getattr(alice_client, method)(URL, {}, content_type="application/json")
    assert response.status_code == 405


def test_the_schema_documents_get_and_patch_with_a_field_per_category(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    operations = schema["paths"][URL]
    assert set(operations) == {"get", "patch"}
    output_ref = operations["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    name = output_ref["$ref"].rsplit("/", 1)[1]
    properties = schema["components"]["schemas"][name]["properties"]
    assert set(properties) == set(NotificationCategory.values)
    assert "400" in operations["patch"]["responses"]
