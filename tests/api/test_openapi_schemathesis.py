"""The OpenAPI schema matches the answers: schemathesis over every operation the schema has.

The schema is loaded from the app itself (/api/schema/ through the WSGI handler, as a client
would fetch it), so an endpoint added anywhere is covered without touching this file. Each
operation is run twice, by an anonymous visitor and by a signed-in member (a verified allauth
account, signed in through the login form; its session cookie and CSRF token are sent as a
browser would, and CSRF is enforced as in production: the requests go through the real
WSGIHandler, not Django's test client, which switches CSRF checks off). Checks: no 5xx, every
status code documented, the content type and the body as documented.

Bounded: SCHEMATHESIS_MAX_EXAMPLES (default 30) generated cases per operation and visitor, on
top of schemathesis's explicit boundary cases, derandomized so a run is reproducible (set
SCHEMATHESIS_RANDOM=1, and more examples, to explore further). Both visitors together take
about a minute on this 2-core machine (two when others share it) for the 35 operations of the
schema today.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import schemathesis
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, settings
from werkzeug import Client as WsgiClient

from claims.services import claim_withdraw as withdraw
from graph.services import coauthor_edges_refresh
from publications.models import MergedWork
from tests.factories import (
    AffiliationFactory,
    AuthorshipFactory,
    ResearcherFactory,
    UserFactory,
    WorkFactory,
    WorkTopicFactory,
)
from tests.support.people import approved_claimant, submit
from tests.support.snapshots import TableRows, snapshot_restore, snapshot_taken

DJANGO = WSGIHandler()


def APP(environ: dict[str, Any], start_response: Any) -> Any:  # noqa: N802 (a WSGI app)
    """Django's WSGI handler, with the client address a server always gives (werkzeug's test
    client leaves REMOTE_ADDR out, and the sign-in limits refuse a request without one)."""
    environ["REMOTE_ADDR"] = environ.get("REMOTE_ADDR") or "127.0.0.1"
    return DJANGO(environ, start_response)


schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", APP)

CHECKS = [
    schemathesis.checks.not_a_server_error,
    schemathesis.checks.status_code_conformance,
    schemathesis.checks.content_type_conformance,
    schemathesis.checks.response_schema_conformance,
]
MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "30"))
DERANDOMIZE = os.environ.get("SCHEMATHESIS_RANDOM", "") != "1"
PASSWORD = "correct horse battery staple"  # noqa: S105 (UserFactory's)
_PATH_PARAMETER = re.compile(r"{([^}]+)}")


@dataclass
class Visitor:
    """What every request of one visitor carries: nothing, or a session cookie and the CSRF
    token (the header a page's script sends, from the csrftoken cookie)."""

    name: str
    cookies: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)


@pytest.fixture
def in_process_requests(db) -> Iterator[None]:
    """Requests handled inside the test's transaction. The WSGI handler closes the database
    connection at the end of each request, which would end the test's transaction; Django's
    test client switches this off the same way."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture(scope="module")
def records_rows(django_db_setup: None, django_db_blocker: Any) -> tuple[dict, list[TableRows]]:
    """The corpus (records_made), made once per process in a transaction that is rolled back
    and kept as its rows (tests/support/snapshots.py): each of the module's hundred tests gets
    a copy in milliseconds instead of making it again."""
    with django_db_blocker.unblock(), transaction.atomic():
        made = records_made()
        rows = snapshot_taken()
        transaction.set_rollback(True)
    return {"member_id": made["member"].pk, "merged_work_id": made["merged_work_id"]}, rows


@pytest.fixture
def records(in_process_requests, records_rows: tuple[dict, list[TableRows]]) -> dict[str, Any]:
    """records_made's rows in this test's transaction."""
    made, rows = records_rows
    snapshot_restore(rows)
    member = get_user_model().objects.get(pk=made["member_id"])
    return {"member": member, "merged_work_id": made["merged_work_id"]}


def records_made() -> dict[str, Any]:
    """A small corpus every operation can find something in: researchers with works, topics,
    an institution and coauthors; a researcher and a work merged into another; a member with
    claims in three states (pending: approved_via is "", approved, withdrawn)."""
    alice_record, bob_record, carol_record = (
        ResearcherFactory(display_name=name, slug=slug)
        for name, slug in [
            ("Alice Liddell", "alice-liddell"),
            ("Bob Dodgson", "bob-dodgson"),
            ("Carol Hatter", "carol-hatter"),
        ]
    )
    ResearcherFactory(slug="alice-merged", merged_into=alice_record)
    for index in range(4):
        work = WorkFactory(cited_by_count=index)
        WorkTopicFactory(work=work)
        for position, author in enumerate([alice_record, bob_record, carol_record][: index + 1]):
            AuthorshipFactory(work=work, researcher=author, position=position + 1)
    AuthorshipFactory(researcher=None, raw_name="Someone Without An Id")
    # A work found to be another one: its row is gone, its id answers with the survivor's.
    merged_away = WorkFactory()
    merged_work_id = merged_away.pk
    merged_away.delete()
    MergedWork.objects.create(id=merged_work_id, survivor=work)
    AffiliationFactory(researcher=alice_record)
    with transaction.atomic():
        coauthor_edges_refresh(researcher_ids=[alice_record.id, bob_record.id, carol_record.id])

    member = UserFactory(email="alice@example.org")
    EmailAddress.objects.create(user=member, email=member.email, verified=True, primary=True)
    # Claimed before the approval: a member who holds an approved record claims no other.
    submit(member, bob_record)
    withdraw(claim=submit(member, carol_record), user=member)
    approved_claimant(member, alice_record)
    return {"member": member, "merged_work_id": merged_work_id}


def _form_text(page: str) -> str:
    """What a person reads in the page's form (the login form's errors among it), not the
    page's head: what a failed sign-in says when it fails."""
    forms = [f for f in re.findall(r"<form.*?</form>", page, re.DOTALL) if 'name="password"' in f]
    text = re.sub(r"<[^>]+>", " ", forms[0] if forms else page)
    return re.sub(r"\s+", " ", text).strip()[:1000]


def signed_in(member) -> Visitor:
    """Sign in through allauth's login form, as a browser does: the login page sets the CSRF
    cookie, the form posts it back, the answer sets the session cookie (and a new CSRF one)."""
    browser = WsgiClient(APP)
    browser.get("/accounts/login/")
    token = browser.get_cookie("csrftoken").value
    answer = browser.post(
        "/accounts/login/",
        data={"login": member.email, "password": PASSWORD, "csrfmiddlewaretoken": token},
        headers={"Referer": "http://localhost/accounts/login/"},
    )
    assert answer.status_code == 302, _form_text(answer.get_data(as_text=True))
    cookies = {name: browser.get_cookie(name).value for name in ("sessionid", "csrftoken")}
    return Visitor("member", cookies=cookies, headers={"X-CSRFToken": cookies["csrftoken"]})


@pytest.fixture(params=["anonymous", "member"])
def visitor(request, records) -> Visitor:
    if request.param == "anonymous":
        return Visitor("anonymous")
    return signed_in(records["member"])


@pytest.mark.sweep
@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    derandomize=DERANDOMIZE,
    deadline=None,
    database=None,
    # The fixtures (the corpus, the session) are the same for every example on purpose.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_every_operation_answers_as_its_schema_says(case, visitor: Visitor) -> None:
    case.call_and_validate(cookies=visitor.cookies, headers=visitor.headers, checks=CHECKS)


def _values_in(body: Any) -> Iterator[tuple[str, Any]]:
    """(key, value) of every id and slug in a JSON answer, however deep."""
    if isinstance(body, dict):
        for key, value in body.items():
            if key in ("id", "slug") and isinstance(value, int | str):
                yield key, value
            else:
                yield from _values_in(value)
    elif isinstance(body, list):
        for item in body:
            yield from _values_in(item)


@pytest.mark.sweep
def test_every_operation_answers_real_records_as_its_schema_says(
    visitor: Visitor, records: dict[str, Any]
) -> None:
    """Generated ids and slugs rarely name a record, so each operation is also called with the
    ids and slugs the lists answer (and a merged researcher's slug and a merged work's id): what
    a record looks like in the answers is checked against the schema too, reads before
    writes."""
    operations = sorted(
        (result.ok() for result in schema.get_all_operations()),
        key=lambda operation: (operation.method.upper() != "GET", operation.path),
    )
    known: dict[str, list[Any]] = {
        "slug": ["alice-merged"],
        "id": [records["merged_work_id"]],
        "pk": [],
    }
    called = 0
    for operation in operations:
        names = _PATH_PARAMETER.findall(operation.path)
        if not names and operation.method.upper() == "GET":
            response = operation.Case().call_and_validate(
                cookies=visitor.cookies, headers=visitor.headers, checks=CHECKS
            )
            called += 1
            if response.status_code == 200:
                for key, value in _values_in(response.json()):
                    if value not in known[key]:
                        known[key].append(value)
            continue
        if len(names) != 1 or names[0] not in known:
            continue
        if names[0] == "pk":
            values = known["id"]
        else:
            values = known[names[0]]
        for value in values[:12]:
            operation.Case(path_parameters={names[0]: value}).call_and_validate(
                cookies=visitor.cookies, headers=visitor.headers, checks=CHECKS
            )
            called += 1
    assert called > len(operations)


# What the sweep found, each pinned by name (issue 11, item 8).


def _call(visitor: Visitor, path: str, method: str, **case: Any):
    operation = schema[path][method]
    return operation.Case(**case).call_and_validate(
        cookies=visitor.cookies, headers=visitor.headers, checks=CHECKS
    )


def test_a_claim_that_is_not_approved_answers_a_blank_approved_via_as_documented(records):
    response = _call(signed_in(records["member"]), "/api/v1/claims/", "GET")

    assert "" in {claim["approved_via"] for claim in response.json()["results"]}


def test_a_claim_with_invalid_fields_answers_a_documented_400_naming_each_field(records):
    response = _call(
        signed_in(records["member"]),
        "/api/v1/claims/",
        "POST",
        body={
            "researcher": "bob-dodgson",
            "claimant_name": "",
            "statement": "short",
            "presented_email": "not an email",
            "evidence_links": ["not a url"],
        },
        media_type="application/json",
    )

    assert response.status_code == 400
    assert {"claimant_name", "statement", "presented_email", "evidence_links"} <= set(
        response.json()
    )


@pytest.mark.parametrize("page_number", ["0", "-1", "abc", "999"])
def test_a_page_that_does_not_exist_answers_a_documented_404(visitor: Visitor, page_number: str):
    response = _call(visitor, "/api/v1/works/", "GET", query={"page": page_number})

    assert response.status_code == 404
    assert response.json() == {"detail": "Invalid page."}


def test_the_page_parameter_says_pages_start_at_1():
    parameters = schema["/api/v1/works/"]["GET"].definition.raw["parameters"]
    page = next(parameter for parameter in parameters if parameter["name"] == "page")

    assert page["schema"]["minimum"] == 1


def test_a_post_to_an_api_path_no_route_matches_answers_the_json_404(in_process_requests):
    response = _call(
        Visitor("anonymous"),
        "/api/v1/claims/{id}/withdraw/",
        "POST",
        path_parameters={"id": "null,null"},
    )

    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


def test_an_api_path_with_a_newline_answers_the_json_404(client, db):
    response = client.get("/api/v1/researchers/a%0Ab/")

    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


def test_a_merged_researchers_graph_answers_the_documented_redirect(records):
    response = _call(
        Visitor("anonymous"),
        "/api/v1/researchers/{slug}/graph/",
        "GET",
        path_parameters={"slug": "alice-merged"},
    )

    assert response.status_code == 302
    assert response.json()["merged_into"] == "alice-liddell"


def test_a_merged_works_id_answers_the_documented_redirect(records):
    response = _call(
        Visitor("anonymous"),
        "/api/v1/works/{id}/",
        "GET",
        path_parameters={"id": records["merged_work_id"]},
    )

    assert response.status_code == 301
    survivor_id = response.json()["merged_into"]
    assert response.headers["location"] == [response.json()["location"]]
    assert response.json()["location"].endswith(f"/api/v1/works/{survivor_id}/")
