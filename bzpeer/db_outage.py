"""PostgreSQL unreachable (restarting, failing over): a 503 with Retry-After and a short
message, never a 500 (issue 29).

While the primary restarts, every query raises django.db.OperationalError (connection refused,
"the database system is shutting down", a connection the server closed) or InterfaceError (a
connection already closed). Nothing was saved by such a request, and the same request succeeds
once the server is back: Django closes a connection that raised at the end of the request, and
CONN_HEALTH_CHECKS tests a kept connection before its next use, so a web process reconnects by
itself without a restart.

Two places, because the error can come from a view or from a middleware before it (the session
or the signed-in user are read from the database):
- DatabaseUnavailableMiddleware.process_exception answers a view's error;
- server_error (bzpeer.urls' handler500) answers the errors Django turned into a 500 anywhere
  else, by the exception it is handling; any other error keeps the plain 500 page.
The page is rendered from a template without the request's context, which would read the
session and the user, that is the database.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.views.defaults import server_error as django_server_error

from .db import lock_conflict_sqlstate
from .db_router import replica_mark_down

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
UNAVAILABLE_MESSAGE = (
    "The database is unavailable for a moment (a restart or a switch-over). Nothing was changed; "
    "please try again in a few seconds."
)
_API_PREFIX = "/api/"


def is_database_unavailable(error: BaseException | None) -> bool:
    """True for the errors of a database that cannot be reached or went away mid-request.
    A lock conflict is an OperationalError too, answered by LockConflictMiddleware instead."""
    if not isinstance(error, OperationalError | InterfaceError):
        return False
    return not lock_conflict_sqlstate(error)


def unavailable_response(request: HttpRequest) -> HttpResponse:
    response: HttpResponse
    if request.path_info.startswith(_API_PREFIX):
        response = JsonResponse({"detail": UNAVAILABLE_MESSAGE}, status=503)
    else:
        content = loader.render_to_string("503.html", {"message": UNAVAILABLE_MESSAGE})
        response = HttpResponse(content, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


class DatabaseUnavailableMiddleware:
    """A view's OperationalError or InterfaceError from an unreachable database: 503."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_database_unavailable(exception):
            return None
        logger.warning("%s %s: database unavailable: %s", request.method, request.path, exception)
        # A replica that failed leaves this process's read pool for a while (bzpeer.db_router).
        for alias in settings.DATABASE_REPLICAS:
            if connections[alias].errors_occurred:
                replica_mark_down(alias)
        return unavailable_response(request)


def server_error(request: HttpRequest, template_name: str = "500.html") -> HttpResponse:
    """handler500: Django calls it while handling the uncaught exception (sys.exc_info)."""
    if is_database_unavailable(sys.exc_info()[1]):
        return unavailable_response(request)
    return django_server_error(request, template_name=template_name)
