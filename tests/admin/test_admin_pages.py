"""Every model of researchers and publications has working admin pages, for staff only."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib import admin
from django.db.models import CompositePrimaryKey
from django.urls import reverse

from ingest.models import ImportChunk, ImportIssue, ImportRun
from publications.models import (
    CitationDegree,
    FormerOpenAlexWorkId,
    MergedWork,
    NameOnlyAuthor,
    PendingRelatedWorks,
    ResearcherNovelty,
    Work,
    WorkListedBy,
    WorkNovelty,
    WorkSource,
    WorkVersion,
)
from researchers.models import CVEntry, Follow, Researcher

from .builders import ONE_ROW, researcher, work

pytestmark = pytest.mark.django_db

MODELS = list(ONE_ROW)
READ_ONLY_MODELS = {
    ImportRun,
    ImportChunk,
    ImportIssue,
    Follow,
    WorkSource,
    WorkVersion,
    NameOnlyAuthor,
    MergedWork,
    FormerOpenAlexWorkId,
    WorkListedBy,
    CVEntry,
}
EDITABLE_MODELS = [model for model in MODELS if model not in READ_ONLY_MODELS]


def url(model, view: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def model_id(model) -> str:
    return model.__name__


def test_every_model_of_researchers_and_publications_and_every_import_record_is_registered():
    # The import records moved from publications to ingest (issue 23); the follow-up queue
    # (PendingFollowUp) is the pipeline's own bookkeeping and has no admin.
    # Models keyed by a composite primary key (the citation graph: Citation, UnresolvedReference)
    # cannot have an admin (Django 5.2's admin needs a single-column key); they are read on
    # the work page and through the API. Novelty (WorkNovelty, ResearcherNovelty) and the
    # related works' bookkeeping (the citation degrees and the queue of works whose citations
    # changed) are derived data, rewritten by their runs, shown on the pages that use them: no
    # admin.
    expected = {
        *(
            model
            for app in ("researchers", "publications")
            for model in apps.get_app_config(app).get_models()
            if not isinstance(model._meta.pk, CompositePrimaryKey)
            and model not in (WorkNovelty, ResearcherNovelty, CitationDegree, PendingRelatedWorks)
        ),
        ImportRun,
        ImportChunk,
        ImportIssue,
    }
    assert expected <= set(admin.site._registry)
    assert expected == set(MODELS)


@pytest.mark.parametrize("model", MODELS, ids=model_id)
def test_the_changelist_answers_for_a_superuser(admin_client, model):
    ONE_ROW[model]()
    response = admin_client.get(url(model, "changelist"))
    assert response.status_code == 200


@pytest.mark.parametrize("model", MODELS, ids=model_id)
def test_the_change_page_answers_for_a_superuser(admin_client, model):
    row = ONE_ROW[model]()
    response = admin_client.get(url(model, "change", row.pk))
    assert response.status_code == 200


@pytest.mark.parametrize("model", EDITABLE_MODELS, ids=model_id)
def test_the_add_page_answers_for_a_superuser(admin_client, model):
    response = admin_client.get(url(model, "add"))
    assert response.status_code == 200


@pytest.mark.parametrize("model", MODELS, ids=model_id)
def test_it_sends_anonymous_visitors_to_the_login_page(client, model):
    row = ONE_ROW[model]()
    for page in (url(model, "changelist"), url(model, "change", row.pk)):
        response = client.get(page)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))


@pytest.mark.parametrize("model", MODELS, ids=model_id)
def test_it_refuses_a_member_who_is_not_staff(member_client, model):
    row = ONE_ROW[model]()
    for page in (url(model, "changelist"), url(model, "change", row.pk)):
        response = member_client.get(page)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))


@pytest.mark.parametrize("model", MODELS, ids=model_id)
def test_it_refuses_staff_without_the_model_permission(staff_client, model):
    row = ONE_ROW[model]()
    assert staff_client.get(url(model, "changelist")).status_code == 403
    assert staff_client.get(url(model, "change", row.pk)).status_code == 403


def test_a_researcher_added_in_the_admin_can_be_found_by_name(admin_client):
    response = admin_client.post(
        url(Researcher, "add"),
        {
            "display_name": "Zhízhen Zhong",
            "slug": "zhizhen-zhong",
            "alternate_names": "",
            "tagline": "",
            "homepage": "",
            "open_to_collaborate": "on",
            "verification_level": "0",
            "affiliations-TOTAL_FORMS": "0",
            "affiliations-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    found = admin_client.get(url(Researcher, "changelist"), {"q": "zhizhen"})
    assert "zhizhen-zhong" in found.content.decode()


def test_a_work_page_lists_its_authors_in_byline_order(admin_client):
    first, second = researcher("Ada First"), researcher("Bo Second")
    created = work("Ordered authors", authors=(first, second))
    response = admin_client.get(url(Work, "change", created.pk))
    content = response.content.decode()
    assert content.index("Ada First") < content.index("Bo Second")
    assert f"?work__id__exact={created.pk}" in content
