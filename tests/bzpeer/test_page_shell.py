"""The page shell exists twice, as templates/base.html (Django templates: accounts, claims,
graph, search) and templates/jinja2/base.html (the public read pages). A visitor must not be
able to tell which one a page used."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template import engines
from django.test import RequestFactory

from tests.factories import UserFactory


def _shell(engine: str, request) -> str:  # noqa: ANN001
    page = engines[engine].from_string('{% extends "base.html" %}').render(request=request)
    # CSRF tokens are masked afresh on every use.
    page = re.sub(r'("X-CSRFToken": "|name="csrfmiddlewaretoken" value=")[^"]+', r"\1…", page)
    return re.sub(r"\s+", " ", page).strip()


@pytest.mark.django_db
@pytest.mark.parametrize("signed_in", [False, True], ids=["visitor", "signed in"])
def test_both_shells_render_the_same_markup(signed_in):
    request = RequestFactory().get("/researchers/some-one/?page=2&sort=cited")
    request.user = UserFactory() if signed_in else AnonymousUser()

    django_shell = _shell("django", request)

    assert django_shell == _shell("jinja2", request)
    assert ("Log out" in django_shell) is signed_in
    if not signed_in:
        assert "next=/researchers/some-one/%3Fpage%3D2%26sort%3Dcited" in django_shell
