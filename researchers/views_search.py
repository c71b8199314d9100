"""Search pages: /search/ with tabs, and the header's name suggestions (htmx)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def search(request: HttpRequest) -> HttpResponse:
    return render(request, "search/search.html", {"search_query": request.GET.get("q", "")})


def suggest(request: HttpRequest) -> HttpResponse:
    return HttpResponse("")
