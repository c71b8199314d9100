"""Every answer to a signed-in person says `private, no-store` (issue 28, item 2): an inbox,
an account page, a feed or an API list depends on who asks, and `Vary: Cookie` alone leaves it
to a CDN to honour. Walked over every URL pattern of the site (the hostile sweep's walk), as
the member and as the newcomer; the anonymous visitor's public pages stay cacheable."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from .hostile import Visitor, all_paths

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("kind", ["member", "newcomer"])
def test_every_answer_to_a_signed_in_person_is_private_and_not_stored(site, kind):
    visitor = Visitor(site, kind)
    stored: list[str] = []
    for route, values in all_paths(site):
        path = route.path(values)
        response = visitor.request("GET", path)
        directives = {d.strip() for d in response.get("Cache-Control", "").split(",")}
        if not {"private", "no-store"} <= directives:
            stored.append(f"{path} {response.status_code} {response.get('Cache-Control')!r}")
    assert not stored, f"{len(stored)} answers a cache may keep:\n" + "\n".join(stored[:40])


def test_public_pages_stay_cacheable_for_visitors(site):
    response = Client().get(reverse("researcher-profile", args=[site.researcher.slug]))
    assert "public" in response["Cache-Control"]
    assert "no-store" not in response["Cache-Control"]
