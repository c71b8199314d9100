"""The root URLconf. Apps are included by name, as INSTALLED_APPS names them: the shared core
never imports the apps built on it (see docs/architecture.md)."""

from __future__ import annotations

from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path
from drf_spectacular.views import SpectacularSwaggerView

from .api_schema_view import SchemaView
from .health import readyz
from .metrics import metrics_view


def healthz(request: HttpRequest) -> HttpResponse:
    """A trivial page: load balancers' health check, and the framework ceiling in benchmarks."""
    return HttpResponse("ok", content_type="text/plain")


# The admin's own login form has none of the site login's limits (allauth's failed-login lockout
# per address and per account) and would sign in an account whose email is not verified. Signing
# in to the admin therefore goes through the site's login, and back to the admin after it.
admin.site.login = secure_admin_login(admin.site.login)  # type: ignore[method-assign]

# A database that cannot be reached is a 503 with Retry-After wherever it fails (bzpeer.db_outage).
handler500 = "bzpeer.db_outage.server_error"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),
    # First: profile pages are the busiest, and every pattern tried before theirs costs each
    # request (no pattern here overlaps another, so the order is only about speed).
    path("", include("pages.urls")),
    path("", include("search.urls")),
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico on every page, ours or allauth's.
    path("favicon.ico", lambda request: redirect(static("favicon.svg"), permanent=True)),
    path("accounts/", include("allauth.urls")),
    path("api/v1/", include("bzpeer.api_urls")),
    path("api/schema/", SchemaView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include("graph.urls")),
    path("", include("feed.urls")),
    path("", include("notifications.urls")),
    path("", include("claims.urls")),
    path("", include("collaboration.urls")),
    path("", include("ingest.urls")),
    path("", include("discovery.urls")),
]
