"""A service's refusal (bzpeer.errors.ServiceError) becomes the same HTTP answer wherever it is
raised: JSON with its status from the API, an error message and its status on an HTML page."""

from __future__ import annotations

import json

import pytest
from django.contrib.messages import get_messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.cache import SessionStore
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory
from django.urls import reverse
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from bzpeer.errors import (
    Conflict,
    Forbidden,
    InvalidRequest,
    RateLimited,
    ServiceError,
    api_exception_handler,
    service_error_as_message,
)
from claims.models import Claim, Report
from claims.ratelimit import RateLimited as ClaimsRateLimited
from claims.services import ClaimConflict, ClaimError
from tests.factories import ResearcherFactory
from tests.support.people import approved_claimant, client_for, reauthenticated, submit


def test_the_api_uses_the_service_error_handler():
    assert api_settings.EXCEPTION_HANDLER is api_exception_handler


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (InvalidRequest("Say why."), 400),
        (Forbidden("This researcher is unavailable."), 403),
        (Conflict("Taken by someone else."), 409),
        (RateLimited("Too many attempts.", retry_after=90), 429),
        (ClaimError("You already have an open claim on this record."), 400),
        (ClaimConflict("The record has already been claimed by another user."), 409),
        (ClaimsRateLimited("claim_submit", retry_after=90), 429),
    ],
)
def test_a_service_error_answers_its_detail_and_status(error, status):
    response = api_exception_handler(error, {})
    assert response.status_code == status
    assert response.data == {"detail": error.message}
    assert response.get("Retry-After") == ("90" if status == 429 else None)


def test_the_claims_errors_are_service_errors():
    assert issubclass(ClaimConflict, ClaimError) and issubclass(ClaimConflict, Conflict)
    assert issubclass(ClaimError, InvalidRequest)
    assert issubclass(ClaimsRateLimited, RateLimited)
    assert str(ClaimsRateLimited("vouch_submit", retry_after=600)) == (
        "Too many attempts. Please try again in about 10 minute(s)."
    )


def test_other_errors_are_left_to_drf():
    assert api_exception_handler(NotFound("No such researcher."), {}).status_code == 404
    assert api_exception_handler(ValueError("a bug"), {}) is None


class _RefusingView(APIView):
    error: ServiceError = InvalidRequest("Refused.")

    def post(self, request: Request) -> Response:
        raise self.error


def test_an_api_view_that_lets_a_refusal_through_answers_json():
    view = _RefusingView.as_view(error=RateLimited("Too many attempts.", retry_after=30))
    response = view(APIRequestFactory().post("/refuse/"))
    response.render()
    assert response.status_code == 429
    assert response["Retry-After"] == "30"
    assert response["Content-Type"] == "application/json"
    assert response.data == {"detail": "Too many attempts."}


def _html_request() -> HttpRequest:
    request = RequestFactory().post("/refuse/")
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    return request


def _form_view(request: HttpRequest, error: ServiceError | None) -> HttpResponse:
    with service_error_as_message(request) as refusal:
        if error is not None:
            raise error
        return HttpResponse("done", status=302)
    return HttpResponse("the form again", status=refusal.status_code)


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (ClaimError("You already have an open claim on this record."), 400),
        (ClaimConflict("Taken by someone else."), 409),
        (Forbidden("This researcher is unavailable."), 403),
        (ClaimsRateLimited("report_submit", retry_after=60), 429),
    ],
)
def test_an_html_view_shows_a_refusal_as_a_message_with_its_status(error, status):
    request = _html_request()
    response = _form_view(request, error)
    assert response.status_code == status
    assert response.content == b"the form again"
    assert [(m.level_tag, m.message) for m in get_messages(request)] == [("error", error.message)]


def test_without_a_refusal_the_block_runs_to_its_end():
    request = _html_request()
    response = _form_view(request, None)
    assert response.status_code == 302
    assert list(get_messages(request)) == []


def test_other_errors_go_through_the_html_mapping_untouched():
    with pytest.raises(ValueError), service_error_as_message(_html_request()):
        raise ValueError("a bug")


# Through the claims pages and API: alice holds a record, bob and charlie are other members.


@pytest.fixture
def alices_record(alice):
    record = ResearcherFactory(display_name="Alice Liddell", slug="alice-liddell")
    approved_claimant(alice, record, level=4)
    return record


def test_the_claims_api_answers_a_refused_withdrawal_with_400(charlie):
    claim = submit(charlie, ResearcherFactory())
    client = reauthenticated(client_for(charlie))
    url = reverse("api:claim-withdraw", args=[claim.pk])
    assert client.post(url).status_code == 200
    again = client.post(url)
    assert again.status_code == 400
    assert again.json() == {"detail": "This claim is already withdrawn."}
    assert Claim.objects.get(pk=claim.pk).status == "withdrawn"


def test_the_claims_api_answers_a_claimed_record_with_409(bob, alices_record):
    response = client_for(bob).post(
        reverse("api:claim-list"),
        {
            "researcher": alices_record.slug,
            "claimant_name": "Bob Bobson",
            "statement": "I wrote these papers, not Alice.",
            "presented_email": bob.email,
        },
        content_type="application/json",
    )
    assert response.status_code == 409
    assert "already been claimed by another user" in response.json()["detail"]


def test_the_report_form_shows_a_second_report_again_with_400(bob, alices_record):
    client = client_for(bob)
    url = reverse("claims:report", args=[alices_record.slug])
    assert client.post(url, {"reason": "Not her at all."}).status_code == 302
    again = client.post(url, {"reason": "Still not her."})
    assert again.status_code == 400
    assert "You have already reported this profile" in again.content.decode()
    assert "Still not her." in again.content.decode()  # the form keeps what bob wrote
    assert Report.objects.count() == 1


def test_a_refused_vouch_redirects_with_the_message(alice, charlie):
    record = ResearcherFactory()
    claim = submit(alice, record)
    response = client_for(charlie).post(reverse("claims:vouch", args=[claim.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("researcher-profile", args=[record.slug])
    messages = [(m.level_tag, m.message) for m in get_messages(response.wsgi_request)]
    assert messages == [("error", "Only researchers with a claim verified at L3 or L4 can vouch.")]


def test_a_validation_error_about_the_whole_input_answers_an_object_as_documented():
    # ValidationError("...") carries a list, which DRF would answer as a bare JSON list; the
    # schema documents one object for every 400 (bzpeer.api_schema.VALIDATION_ERROR_SCHEMA).
    response = api_exception_handler(ValidationError("Give two slugs."), {})

    assert response.status_code == 400
    assert response.data == {"non_field_errors": ["Give two slugs."]}


def test_a_validation_error_about_fields_is_left_as_drf_answers_it():
    response = api_exception_handler(ValidationError({"years": ["Too many."]}), {})

    assert response.data == {"years": ["Too many."]}


class _ChoiceInput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["one", "two"])


class _ChoiceView(APIView):
    def post(self, request: Request) -> Response:
        _ChoiceInput(data=request.data).is_valid(raise_exception=True)
        return Response({})


def test_an_error_quoting_a_lone_surrogate_from_the_json_body_answers_a_400_not_a_500():
    # JSON's "\ud800" escape is a code point UTF-8 cannot encode; DRF's message quotes the
    # value back ('"\ud800" is not a valid choice.'), and rendering that raised.
    request = APIRequestFactory().post(
        "/api/v1/anything/", b'{"kind": "\\ud800"}', content_type="application/json"
    )

    response = _ChoiceView.as_view()(request)
    response.render()

    assert response.status_code == 400
    assert json.loads(response.content) == {"kind": ['"\ufffd" is not a valid choice.']}
