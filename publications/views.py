from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse


def work_detail(request: HttpRequest, pk: int) -> HttpResponse:
    raise Http404


def topic_detail(request: HttpRequest, pk: int) -> HttpResponse:
    raise Http404
