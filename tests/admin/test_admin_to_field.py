"""The admin's `_to_field` (the field a related-object popup selects by) naming nothing, as
`?_to_field=` or a bare `?_to_field`, is a 400 with a message on every page of every registered
ModelAdmin, never a 500 (the admin skips its check for an empty value, then looks the empty name
up among the model's fields)."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import NoReverseMatch, reverse

from bzpeer.middleware import EMPTY_TO_FIELD_REFUSAL

pytestmark = pytest.mark.django_db

EMPTY_TO_FIELD = ["_to_field=", "_to_field", "_to_field=%20"]


def admin_pages() -> list[str]:
    """Changelist, add, change, delete and history of every registered ModelAdmin. The object
    pages name pk 1: the error came before the object was looked up."""
    pages = []
    for model in admin.site._registry:
        prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        for name, args in [
            ("changelist", ()),
            ("add", ()),
            ("change", ("1",)),
            ("delete", ("1",)),
            ("history", ("1",)),
        ]:
            try:
                pages.append(reverse(f"{prefix}_{name}", args=args))
            except NoReverseMatch:
                continue  # an admin that removes one of its pages
    return pages


def test_the_walk_covers_every_registered_model_admin():
    pages = admin_pages()
    assert len(admin.site._registry) > 10
    assert len(pages) >= 3 * len(admin.site._registry)


@pytest.mark.parametrize("query", EMPTY_TO_FIELD)
def test_an_empty_to_field_is_a_400_with_a_message_on_every_admin_page(admin_client, query):
    failures = []
    for page in admin_pages():
        response = admin_client.get(f"{page}?{query}")
        if response.status_code != 400 or EMPTY_TO_FIELD_REFUSAL not in response.content.decode():
            failures.append((page, response.status_code))
    assert failures == []


def test_an_empty_to_field_in_a_posted_change_form_is_a_400(admin_client):
    failures = []
    for page in admin_pages():
        if page.endswith("/change/"):
            response = admin_client.post(page, {"_to_field": ""})
            if response.status_code != 400:
                failures.append((page, response.status_code))
    assert failures == []


def test_a_to_field_the_admin_allows_still_works(admin_client, django_user_model):
    # The researcher popup selects by primary key; the admin allows "id" as _to_field.
    response = admin_client.get(
        reverse("admin:researchers_researcher_changelist"), {"_to_field": "id", "_popup": "1"}
    )
    assert response.status_code == 200


def test_a_to_field_the_admin_does_not_allow_is_still_its_own_400(admin_client):
    response = admin_client.get(
        reverse("admin:researchers_researcher_changelist"), {"_to_field": "nope"}
    )
    assert response.status_code == 400


def test_an_empty_to_field_outside_the_admin_is_left_alone(client):
    assert client.get("/search/?_to_field=").status_code == 200


def test_anonymous_visitors_get_the_same_400_before_the_login_redirect(client):
    response = client.get(
        reverse("admin:researchers_researcher_change", args=["1"]) + "?_to_field="
    )
    assert response.status_code == 400
