from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from tests.support.people import two_factor_on


@pytest.fixture
def staff_user(django_user_model):
    """bob: staff, but with no model permissions (two-factor authentication on, as the admin
    requires)."""
    user = django_user_model.objects.create_user(
        username="bob", email="bob@example.org", password="bob-password", is_staff=True
    )
    two_factor_on(user)
    return user


@pytest.fixture
def staff_client(staff_user):
    # A client of its own, so a test can hold several signed-in clients at once.
    client = Client()
    client.force_login(staff_user)
    return client


@pytest.fixture
def member_client(django_user_model):
    """charlie: a signed-in member who is not staff."""
    charlie = django_user_model.objects.create_user(
        username="charlie", email="charlie@example.org", password="charlie-password"
    )
    client = Client()
    client.force_login(charlie)
    return client


@pytest.fixture
def grant(staff_user):
    """Give bob a model permission by codename, e.g. grant("view_importrun")."""

    def give(*codenames: str) -> None:
        for codename in codenames:
            staff_user.user_permissions.add(Permission.objects.get(codename=codename))

    return give
