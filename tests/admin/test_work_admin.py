"""Editing a work in the admin, authors included, when it has more authors than a page shows."""

from __future__ import annotations

import pytest
from django.urls import reverse

from publications.models import Authorship

from . import builders

pytestmark = pytest.mark.django_db


def form_data(response) -> dict[str, str]:
    """The POST data the change page would send back unchanged: main form and inlines."""
    data: dict[str, str] = {}
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        forms.append(formset.management_form)
        forms.extend(formset.forms)
    for form in forms:
        for bound in form:
            value = bound.value()
            if value is None or value is False:
                continue
            data[bound.html_name] = "on" if value is True else str(value)
    return data


def test_an_author_of_a_work_with_more_authors_than_a_page_can_be_renamed(admin_client):
    authors = tuple(builders.researcher(f"Author {number}") for number in range(60))
    work = builders.work("A very collaborative paper", authors=authors)
    url = reverse("admin:publications_work_change", args=[work.pk])
    page = admin_client.get(url)
    authorship_prefix = next(
        inline.formset.prefix
        for inline in page.context["inline_admin_formsets"]
        if inline.opts.model is Authorship
    )
    data = form_data(page)
    assert data[f"{authorship_prefix}-INITIAL_FORMS"] == "50"
    data[f"{authorship_prefix}-0-raw_name"] = "Author Zero, renamed"

    response = admin_client.post(url, data)

    assert response.status_code == 302, response.context["errors"]
    assert work.authorships.get(position=1).raw_name == "Author Zero, renamed"
    assert work.authorships.count() == 60
    assert work.authorships.get(position=60).raw_name == "Author 59"
