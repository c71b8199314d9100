"""Changelists run a bounded number of queries whatever the number of rows."""

from __future__ import annotations

import pytest
from django.urls import reverse

from .builders import ONE_ROW

pytestmark = pytest.mark.django_db

# The user, the count (or the planner's estimate), the page of rows with their related rows
# joined in, and a few per-list extras (a filter's choices, such as the list of runs). The
# session lives in Redis and costs no query.
# Six, and one for the staff member's two-factor authenticator (StaffTwoFactorMiddleware).
MAX_QUERIES_PER_CHANGELIST = 7


def changelist(model) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


@pytest.mark.parametrize("rows", [1, 30], ids=["1 row", "30 rows"])
@pytest.mark.parametrize("model", list(ONE_ROW), ids=lambda model: model.__name__)
def test_the_changelist_runs_the_same_bounded_number_of_queries_for_1_or_30_rows(
    admin_client, django_assert_max_num_queries, model, rows
):
    for _ in range(rows):
        ONE_ROW[model]()
    admin_client.get(changelist(model))  # warm the content-type and permission caches
    with django_assert_max_num_queries(MAX_QUERIES_PER_CHANGELIST):
        response = admin_client.get(changelist(model))
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == model.objects.count()


@pytest.mark.parametrize("model", list(ONE_ROW), ids=lambda model: model.__name__)
def test_the_change_page_of_a_row_runs_few_queries(
    admin_client, django_assert_max_num_queries, model
):
    # Inline rows are capped (LimitedInlineFormSet), so a work with thousands of authors
    # costs at most a page of them more than this.
    row = ONE_ROW[model]()
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[row.pk])
    with django_assert_max_num_queries(9):
        assert admin_client.get(url).status_code == 200


def test_an_unfiltered_list_of_a_large_table_shows_the_planner_estimate(admin_client, monkeypatch):
    from bzpeer import admin as bzpeer_admin
    from researchers.models import Researcher

    ONE_ROW[Researcher]()
    monkeypatch.setattr(bzpeer_admin, "_planner_row_estimate", lambda queryset: 2_000_000)
    response = admin_client.get(changelist(Researcher))
    assert response.context["cl"].result_count == 2_000_000
    # A filtered list is still counted exactly.
    filtered = admin_client.get(changelist(Researcher), {"claimed_by__isempty": "1"})
    assert filtered.context["cl"].result_count == 1


def test_the_planner_estimate_reads_the_table_statistics():
    from django.db import connection

    from bzpeer.admin import _planner_row_estimate
    from researchers.models import Institution

    for _ in range(3):
        ONE_ROW[Institution]()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE researchers_institution")
    assert _planner_row_estimate(Institution.objects.all()) == 3
