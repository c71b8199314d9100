"""import_openalex --query: works from the API, through the same writer as snapshot files."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from ingest.models import ImportRun
from publications.models import Work


@pytest.mark.django_db(transaction=True)
def test_query_imports_the_works_of_every_page(httpserver, settings, testdata_dir):
    settings.OPENALEX_API_URL = httpserver.url_for("")
    body = (testdata_dir / "openalex/api/works/rh_works_cursor_page_covid19.json").read_text()
    last = (testdata_dir / "openalex/api/works/oap_cursor_last_page_empty.json").read_text()
    httpserver.expect_ordered_request(
        "/works", query_string={"filter": "publication_year:2020", "per-page": "200", "cursor": "*"}
    ).respond_with_data(body, content_type="application/json")
    httpserver.expect_ordered_request("/works").respond_with_data(
        last, content_type="application/json"
    )

    call_command("import_openalex", query="publication_year:2020", sync=True, no_progress=True)

    run = ImportRun.objects.get()
    assert (run.status, run.source, run.read_count, run.created_count) == (
        "succeeded",
        "openalex-api",
        3,
        3,
    )
    work = Work.objects.get(openalex_id="W3001118548")
    assert work.authorships.count() == 29
    assert list(work.authorships.order_by("position").values_list("position", flat=True)) == list(
        range(1, 30)
    )


@pytest.mark.django_db(transaction=True)
def test_a_rejected_query_fails_the_command_with_openalex_message(
    httpserver, settings, testdata_dir
):
    settings.OPENALEX_API_URL = httpserver.url_for("")
    body = (testdata_dir / "openalex/api/errors/oap_400_invalid_filter.json").read_text()
    httpserver.expect_request("/works").respond_with_data(
        body, status=400, content_type="application/json"
    )

    with pytest.raises(
        CommandError, match="OpenAlex answered 400 .* DOESNTEXIST is not a valid field"
    ):
        call_command("import_openalex", query="DOESNTEXIST:1", sync=True, no_progress=True)

    assert ImportRun.objects.get().status == ImportRun.Status.FAILED
