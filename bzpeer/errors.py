"""Errors a service raises to refuse an action, and their one mapping to HTTP.

A service refuses by raising a ServiceError subclass: its message is written for the person
acting, its class says which HTTP answer it becomes. The mapping lives here only: DRF views get
it from `api_exception_handler` (REST_FRAMEWORK["EXCEPTION_HANDLER"]), HTML views from
`service_error_as_message` (with `retry_after_header` on the view, for the Retry-After of a
temporary refusal). Views call services and let the refusal through; none of them turns an
error into a status code or a header again.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler, set_rollback

_SURROGATE = re.compile("[\ud800-\udfff]")


class ServiceError(Exception):
    """A rule refused the action. `message` can be shown as it is to the person acting."""

    status_code: int = status.HTTP_400_BAD_REQUEST
    # Seconds after which trying again can succeed, when the refusal is temporary.
    retry_after: int | None = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidRequest(ServiceError):
    """The request breaks a rule the person can do something about (400)."""

    status_code: int = status.HTTP_400_BAD_REQUEST


class Forbidden(ServiceError):
    """The person may not do this, and nothing they can change in the request makes it
    allowed (403). Objects they may not see at all are a 404 (Http404), not this."""

    status_code: int = status.HTTP_403_FORBIDDEN


class Conflict(ServiceError):
    """The object is already taken or in another state: someone else got there first (409)."""

    status_code: int = status.HTTP_409_CONFLICT


class Busy(ServiceError):
    """The database gave up on the action because of a lock conflict with another one at the
    same moment (a deadlock or a serialization failure), and trying again a few times did not
    get through (503, with a Retry-After): nothing was saved, the same request can succeed."""

    status_code: int = status.HTTP_503_SERVICE_UNAVAILABLE

    def __init__(self, message: str, *, retry_after: int = 2) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class RateLimited(ServiceError):
    """Too many attempts; the same request can succeed after `retry_after` seconds (429)."""

    status_code: int = status.HTTP_429_TOO_MANY_REQUESTS

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's exception handler with ServiceError answered as {"detail": message}, its status
    and, for a temporary refusal, a Retry-After header. Anything else is DRF's default, a
    validation error always as an object."""
    if isinstance(exc, ServiceError):
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
        # As DRF does for its own errors: an error answer never commits a request transaction.
        set_rollback()
        return Response({"detail": exc.message}, status=exc.status_code, headers=headers)
    response = exception_handler(exc, context)
    if isinstance(exc, ValidationError) and response is not None and isinstance(exc.detail, list):
        # ValidationError("message") would answer a bare list; the schema documents one object
        # for every 400 (bzpeer.api_schema), so the whole-input errors go where a serializer
        # puts its own.
        response.data = {api_settings.NON_FIELD_ERRORS_KEY: response.data}
    if response is not None:
        response.data = _without_lone_surrogates(response.data)
    return response


def _without_lone_surrogates(value: Any) -> Any:
    """The error with each lone surrogate (a code point from U+D800 to U+DFFF on its own, which
    a JSON string's \\ud800 escape can carry in) replaced by U+FFFD. A message that quotes the
    input ('"..." is not a valid choice.') could not be encoded as UTF-8: the answer was a 500."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_without_lone_surrogates(k): _without_lone_surrogates(v) for k, v in value.items()}
    return value


@dataclass
class Refusal:
    """What the block under `service_error_as_message` was refused with, if anything."""

    error: ServiceError | None = None

    def __bool__(self) -> bool:
        return self.error is not None

    @property
    def status_code(self) -> int:
        """The status of the page that reports the refusal (200 when there was none)."""
        return self.error.status_code if self.error is not None else status.HTTP_200_OK


@contextmanager
def service_error_as_message(request: HttpRequest) -> Iterator[Refusal]:
    """The HTML side of the mapping: a ServiceError raised in the block becomes an error
    message for the next page the person sees, and the block is left there.

    The view decides the page: code after the block runs only on a refusal, so a form view
    re-renders with `refusal.status_code` and a button view redirects either way:

        with service_error_as_message(request) as refusal:
            services.report_submit(...)
            messages.success(request, "Thank you.")
            return redirect(profile)
        return render(request, "form.html", context, status=refusal.status_code)
    """
    refusal = Refusal()
    try:
        yield refusal
    except ServiceError as error:
        refusal.error = error
        # For retry_after_header, which sees only the request and the page the view built.
        request.service_refusal = error  # type: ignore[attr-defined]
        messages.error(request, error.message)


def retry_after_header(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A view decorator: when the view answers a temporary refusal met under
    `service_error_as_message` with that refusal's status (429), the answer carries the
    refusal's Retry-After, as the API's answers do. A view that redirects instead is left as
    it is: the error message on the next page says when to try again."""

    @wraps(view)
    def view_with_retry_after(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        error: ServiceError | None = getattr(request, "service_refusal", None)
        if (
            error is not None
            and error.retry_after is not None
            and response.status_code == error.status_code
        ):
            response["Retry-After"] = str(error.retry_after)
        return response

    return view_with_retry_after
