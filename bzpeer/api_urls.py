"""The read-only REST API, mounted at /api/v1/ by bzpeer.urls."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.urls import include, path, re_path

from publications.api import ResearcherWorksView, WorkDetailView, WorkListView
from researchers.api import ResearcherDetailView, ResearcherListView

app_name = "api"


def api_not_found(request: HttpRequest, unmatched_path: str) -> JsonResponse:
    """JSON 404 for API URLs no route matches (works/abc/, a malformed slug), so clients never
    have to parse the HTML error page. Only paths ending in a slash land here, so APPEND_SLASH
    still redirects works to works/."""
    return JsonResponse({"detail": "Not found."}, status=404)


urlpatterns = [
    path("researchers/", ResearcherListView.as_view(), name="researcher-list"),
    path("researchers/<slug:slug>/", ResearcherDetailView.as_view(), name="researcher-detail"),
    path("researchers/<slug:slug>/works/", ResearcherWorksView.as_view(), name="researcher-works"),
    path("works/", WorkListView.as_view(), name="work-list"),
    path("works/<int:pk>/", WorkDetailView.as_view(), name="work-detail"),
    path("", include("graph.api_urls")),
    path("", include("claims.api_urls")),
    # Last: anything above did not match.
    re_path(r"^(?P<unmatched_path>.*/)$", api_not_found),
]
