"""Middleware the whole site shares.

RejectUnreadableInputMiddleware answers 400, with a short message, to the requests that would
otherwise end in a 500 however well each view validates its input:

- A NUL character in the address, the query string or a header value. PostgreSQL refuses NUL
  in text, so a NUL that reaches a query raises a database error wherever user input meets the
  database: a slug looked up, a name searched, a session key or a credential checked. No page
  or API call has a use for one, so it is refused once, here, before any view or
  authentication runs. Form fields refuse NUL on their own (the validators of Django's and
  DRF's CharField), so the values inside request bodies are left to them.
- A form body that Django cannot read: a urlencoded body declared in another charset than
  UTF-8, a multipart body without a valid boundary, too many fields. Django raises while
  reading request.POST, and when that first happens inside its own 404, 400 or 500 handler
  (which check the CSRF token, so read the body), the error escapes them all. The body is read
  here once instead; CsrfViewMiddleware, just after, would read it on every POST anyway.
- A JSON body nested deeper than Python's parser can recurse: DRF's JSONParser turns a
  ValueError into a 400 but lets the RecursionError through.
- An empty `_to_field` (`?_to_field=`, or the bare `?_to_field`) on an admin page. The admin
  refuses a field it does not allow with a 400 of its own, but skips that check for an empty
  value and then looks the empty name up among the model's fields (a KeyError, so a 500 on
  every change and delete page).

MissingSocialAppMiddleware answers 404 with a page that says so when a social sign-in provider
(ORCID) has no keys configured: allauth raises SocialApp.DoesNotExist from its login and
callback views then, and the demo and development sites run without ORCID keys. The sign-in
page shows no ORCID button in that case (allauth lists only providers that have an app).

StaffTwoFactorMiddleware sends a staff member who has not turned two-factor authentication on to
its set-up page instead of the admin: the admin changes anyone's data, so its accounts must not
fall to a guessed or reused password alone.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from functools import lru_cache

from allauth.mfa.utils import is_mfa_enabled
from allauth.socialaccount.models import SocialApp
from allauth.socialaccount.providers import registry
from django.contrib import messages
from django.core.exceptions import BadRequest, SuspiciousOperation
from django.db import DatabaseError
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseRedirect,
    JsonResponse,
)
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.urls import reverse

from .db import BUSY_MESSAGE, lock_conflict_sqlstate
from .errors import Busy

NUL = "\x00"
FORM_CONTENT_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
# The REST API answers JSON errors ({"detail": ...}) like every other API error (bzpeer.api).
_API_PREFIX = "/api/"
NUL_REFUSAL = "The request contains a NUL character (%00), which no address or field accepts."
JSON_DEPTH_REFUSAL = "The JSON body is nested too deeply."
# The admin's query parameter naming the field a related-object popup selects by.
ADMIN_TO_FIELD = "_to_field"
EMPTY_TO_FIELD_REFUSAL = (
    "_to_field must name a field of the model; leave it out to select by the primary key."
)


def request_has_nul(request: HttpRequest) -> bool:
    """Whether the path, the query string or a header value of `request` carries a NUL.

    The query string is checked as the views read it, decoded: besides %00, a charset the
    client declares can make other bytes decode to NUL (UTF-7's "+AAA-")."""
    if NUL in request.path_info or NUL in request.path:
        return True
    for key, values in request.GET.lists():
        if NUL in key or any(NUL in value for value in values):
            return True
    return any(
        (name.startswith("HTTP_") or name in ("CONTENT_TYPE", "CONTENT_LENGTH"))
        and isinstance(value, str)
        and NUL in value
        for name, value in request.META.items()
    )


def unreadable_form_body(request: HttpRequest) -> str | None:
    """Why Django cannot read the form body of this POST, or None when it can (or there is
    none). Reading it caches the result on the request for every later reader."""
    if request.method != "POST" or request.content_type not in FORM_CONTENT_TYPES:
        return None
    try:
        request.POST  # noqa: B018  # read for its side effect: parse, or raise
    except SuspiciousOperation as error:
        # Logged where Django's own handler would log it (too many fields, too big a body).
        logging.getLogger(f"django.security.{error.__class__.__name__}").error(str(error))
        return f"The form data cannot be read: {error}"
    except (BadRequest, MultiPartParserError) as error:
        return f"The form data cannot be read: {error}"
    return None


def json_body_too_deep(request: HttpRequest) -> bool:
    """Whether a JSON request body is nested too deeply for json.loads. Other JSON errors are
    left to the API's parser, which answers them with a 400 of its own."""
    content_type = request.content_type or ""
    if not (content_type == "application/json" or content_type.endswith("+json")):
        return False
    try:
        json.loads(request.body)
    except RecursionError:
        return True
    except (ValueError, SuspiciousOperation):
        # Invalid JSON, or a body over DATA_UPLOAD_MAX_MEMORY_SIZE: the parser's to answer.
        return False
    return False


def admin_to_field_is_empty(request: HttpRequest) -> bool:
    """Whether an admin page was asked for with `_to_field` present but naming nothing. Both
    places the admin reads it from count (the form body first, as changeform_view does)."""
    if not request.path_info.startswith(_admin_prefix()):
        return False
    for values in (request.POST if request.method == "POST" else {}, request.GET):
        if ADMIN_TO_FIELD in values:
            return not values[ADMIN_TO_FIELD].strip()
    return False


@lru_cache(maxsize=1)
def _admin_prefix() -> str:
    return reverse("admin:index")


class RejectUnreadableInputMiddleware:
    """400 with a short message for the requests of the module docstring (but the last
    paragraph's): JSON under /api/, plain text elsewhere."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request_has_nul(request):
            return self._refuse(request, NUL_REFUSAL)
        if refusal := unreadable_form_body(request):
            return self._refuse(request, refusal)
        if json_body_too_deep(request):
            return self._refuse(request, JSON_DEPTH_REFUSAL)
        if admin_to_field_is_empty(request):
            return self._refuse(request, EMPTY_TO_FIELD_REFUSAL)
        return self.get_response(request)

    @staticmethod
    def _refuse(request: HttpRequest, message: str) -> HttpResponse:
        if request.path_info.startswith(_API_PREFIX):
            return JsonResponse({"detail": message}, status=400)
        return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


# How the site names a provider whose allauth name is not the one people know ("Orcid.org").
_PROVIDER_NAMES = {"orcid": "ORCID"}


class MissingSocialAppMiddleware:
    """404, with a page that says why, for a social sign-in provider that has no keys."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, SocialApp.DoesNotExist):
            return None
        match = request.resolver_match
        # allauth names its provider URLs "<provider id>_login", "<provider id>_callback".
        provider_id = match.url_name.rsplit("_", 1)[0] if match and match.url_name else ""
        provider_class = registry.get_class(provider_id)
        provider_name = _PROVIDER_NAMES.get(provider_id) or (
            provider_class.name if provider_class is not None else "this provider"
        )
        logging.getLogger(__name__).warning(
            "Sign-in with %s asked for, but it has no keys configured.", provider_name
        )
        return render(
            request,
            "socialaccount/provider_not_configured.html",
            {"provider_name": provider_name},
            status=404,
        )


class LockConflictMiddleware:
    """503 with Retry-After, never a 500, for a request the database gave up on because of a
    lock conflict: a Busy refusal no view caught (services retry a deadlock or serialization
    failure a few times before refusing, bzpeer.db.retry_on_lock_conflict), or such an error
    raised where no service retries. Nothing was saved; the same request can succeed."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Busy):
            error = exception
        elif isinstance(exception, DatabaseError) and lock_conflict_sqlstate(exception):
            error = Busy(BUSY_MESSAGE)
        else:
            return None
        logging.getLogger(__name__).warning("%s %s: lock conflict", request.method, request.path)
        if request.path_info.startswith(_API_PREFIX):
            response: HttpResponse = JsonResponse({"detail": error.message}, status=503)
        else:
            response = HttpResponse(
                error.message, status=503, content_type="text/plain; charset=utf-8"
            )
        response["Retry-After"] = str(error.retry_after)
        return response


@lru_cache(maxsize=1)
def _admin_prefix() -> str:
    return reverse("admin:index")


STAFF_TWO_FACTOR_MESSAGE = (
    "Staff accounts need two-factor authentication before they reach the admin. Set it up here."
)


class StaffTwoFactorMiddleware:
    """A signed-in staff member without an active authenticator (TOTP) is redirected from any
    admin page to allauth's TOTP set-up, with a message saying why. Costs one query, on admin
    requests of staff only."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if (
            user is not None
            and user.is_authenticated
            and user.is_staff
            and request.path.startswith(_admin_prefix())
            and not is_mfa_enabled(user)
        ):
            messages.warning(request, STAFF_TWO_FACTOR_MESSAGE)
            return HttpResponseRedirect(reverse("mfa_activate_totp"))
        return self.get_response(request)
