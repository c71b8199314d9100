"""Fixtures for the claims tests: alice claims, bob is another member, charlie a bystander;
mod is a moderator (staff with the claims permissions)."""

from __future__ import annotations

import re

import pytest

from bzpeer.celery import app as celery_app
from tests.factories import (
    AffiliationFactory,
    AuthorshipFactory,
    InstitutionFactory,
    ResearcherFactory,
    WorkFactory,
)


@pytest.fixture
def moderator_permissions() -> tuple[str, ...]:
    """The claims moderator's permissions."""
    return (
        "view_claim",
        "change_claim",
        "view_pendingclaim",
        "change_pendingclaim",
        "view_report",
        "change_report",
        "view_splitrequest",
        "change_splitrequest",
        "view_moderationevent",
        "view_researcher",
        "change_researcher",
    )


ORCID_TEST_APP = {"client_id": "APP-TESTCLIENT0000", "secret": "test-secret"}


@pytest.fixture(autouse=True)
def eager_celery():
    """Tasks enqueued with .delay() run in-process: the task bodies are what is under test
    here (the real worker is covered by the import tests)."""
    previous = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous


# ORCID's 404, as its public API answers an iD it has no public record of.
ORCID_NOT_FOUND = {
    "response-code": 404,
    "developer-message": "404 Not Found: The resource was not found.",
    "user-message": "The resource was not found.",
    "error-code": 9016,
}


@pytest.fixture(autouse=True)
def orcid_public_api(httpserver, settings):
    """ORCID's public API is a local server: an approval with a connected ORCID iD imports the
    record (claims.services.orcid_import), and no test may reach pub.orcid.org. It answers
    ORCID's 404 unless a test registers an answer with expect_oneshot_request (one-shot
    handlers are matched before this permanent one)."""
    httpserver.expect_request(re.compile(r"^/v3\.0/")).respond_with_json(
        ORCID_NOT_FOUND, status=404
    )
    settings.ORCID_PUBLIC_API_URL = httpserver.url_for("/v3.0")
    return httpserver


@pytest.fixture
def commit(django_capture_on_commit_callbacks):
    """`with commit():` runs the on_commit callbacks (task enqueues) of what it wraps."""

    def run():
        return django_capture_on_commit_callbacks(execute=True)

    return run


@pytest.fixture
def orcid_app(settings):
    """ORCID configured as allauth would be in production (keys from the environment)."""
    settings.SOCIALACCOUNT_PROVIDERS = {
        "orcid": {"BASE_DOMAIN": "orcid.org", "MEMBER_API": False, "APPS": [ORCID_TEST_APP]}
    }
    return ORCID_TEST_APP


@pytest.fixture
def record(db):
    """An unclaimed L1 record, "Alice Liddell", with two works that have DOIs."""
    researcher = ResearcherFactory(
        display_name="Alice Liddell", alternate_names=["A. Liddell"], slug="alice-liddell"
    )
    for _ in range(2):
        AuthorshipFactory(researcher=researcher)
    return researcher


def record_at_institution(researcher, *domains: str, name: str = "Wonderland University"):
    institution = InstitutionFactory(name=name, email_domains=list(domains))
    AffiliationFactory(researcher=researcher, institution=institution)
    return institution


def coauthored(a, b):
    """A work that both researchers authored."""
    work = WorkFactory(authors_count=2)
    AuthorshipFactory(work=work, researcher=a, position=1)
    AuthorshipFactory(work=work, researcher=b, position=2)
    return work
