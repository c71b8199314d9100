from __future__ import annotations

from django.contrib import admin
from django.contrib.sitemaps import views as sitemap_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from .sitemaps import SITEMAPS


def healthz(request: HttpRequest) -> HttpResponse:
    """A trivial page: load balancers' health check, and the framework ceiling in benchmarks."""
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # First: profile pages are the busiest, and every pattern tried before theirs costs each
    # request (no pattern here overlaps another, so the order is only about speed).
    path("", include("researchers.urls")),
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico on every page, ours or allauth's.
    path("favicon.ico", lambda request: redirect(static("favicon.svg"), permanent=True)),
    path("sitemap.xml", sitemap_views.index, {"sitemaps": SITEMAPS}, name="sitemap-index"),
    path(
        "sitemap-<section>.xml",
        sitemap_views.sitemap,
        {"sitemaps": SITEMAPS},
        name="django.contrib.sitemaps.views.sitemap",
    ),
    path("accounts/", include("allauth.urls")),
    path("api/v1/", include("bzpeer.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include("publications.urls")),
    path("", include("graph.urls")),
    path("", include("claims.urls")),
]
