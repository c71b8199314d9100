"""What every part of the REST API shares: pagination, identifier filters, the merged-record
redirect, and the JSON 404 for unmatched API paths.

The apps' API views (researchers.api, publications.api, graph.api, claims.api) use these, so
every list in the API pages and validates the same way.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from django import forms
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django_filters import rest_framework as filters
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response

MAX_PAGE_SIZE = 100
# At most 9 digits: anything longer is out of range anyway, and int() refuses to read text of
# more than 4,300 digits (a ValueError, so a 500, before the range is even checked).
_WHOLE_NUMBER = re.compile(r"[0-9]{1,9}")
_OPENALEX_URL_PREFIX = re.compile(r"^https?://openalex\.org/", re.IGNORECASE)
_ORCID_URL_PREFIX = re.compile(r"^https?://orcid\.org/", re.IGNORECASE)
_ORCID = re.compile(r"[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]")

MERGED_REDIRECT_DESCRIPTION = (
    "When the slug belongs to a record that a moderator merged into another one, the answer "
    "is a 302 whose Location header (also given as `location` in the JSON body) is the same "
    "URL for the surviving record. It is not a 301 because a wrong merge can be split again."
)


class ApiPagination(PageNumberPagination):
    """Page numbers with next/previous links. A page_size the API cannot honour is a 400 rather
    than DRF's silent fallback, so a client never mistakes a short page for the end of the data."""

    page_size = 25
    page_size_query_param = "page_size"
    page_size_query_description = f"Results per page, 1 to {MAX_PAGE_SIZE} (default 25)."
    max_page_size = MAX_PAGE_SIZE

    def get_page_size(self, request: Request) -> int:
        raw_page_size = request.query_params.get(self.page_size_query_param, "")
        if raw_page_size == "":
            return self.page_size
        if not _WHOLE_NUMBER.fullmatch(raw_page_size) or not (
            1 <= int(raw_page_size) <= self.max_page_size
        ):
            raise ValidationError(
                {self.page_size_query_param: [f"Enter a whole number from 1 to {MAX_PAGE_SIZE}."]}
            )
        return int(raw_page_size)

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> Any:
        # DRF reads an empty ?page= as page 1; the schema says a page is a whole number from 1,
        # so an empty one is the same 404 as any other value that is not.
        if request.query_params.get(self.page_query_param) == "":
            raise NotFound("Invalid page.")
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        """DRF's two parameters with their bounds, so a client (and a schema-driven test) knows
        which values are answered with a page and which with an error."""
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["description"] = (
                    "A page number from 1. A page past the last one, or a value that is not a "
                    "whole number from 1, is a 404 (`Invalid page.`)."
                )
                parameter["schema"]["minimum"] = 1
            elif parameter["name"] == self.page_size_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_page_size)
        return parameters


class OpenAlexIdField(forms.CharField):
    """An OpenAlex id such as A5023888391, bare or as its https://openalex.org/ URL."""

    def __init__(self, *, entity_letter: str, **kwargs: Any) -> None:
        self.entity_letter = entity_letter
        self.pattern = re.compile(rf"{entity_letter}[0-9]+")
        super().__init__(max_length=64, **kwargs)

    def to_python(self, value: Any) -> str:
        raw_value = super().to_python(value)
        value = _OPENALEX_URL_PREFIX.sub("", raw_value).upper()
        # Checked on the raw value: a bare URL prefix must not become "no filter".
        if raw_value and not self.pattern.fullmatch(value):
            raise forms.ValidationError(
                f"Enter an OpenAlex id such as {self.entity_letter}5023888391.", code="invalid"
            )
        return value


class OpenAlexIdFilter(filters.CharFilter):
    field_class = OpenAlexIdField


class OrcidField(forms.CharField):
    """An ORCID iD such as 0000-0002-1825-0097, bare or as its https://orcid.org/ URL."""

    def to_python(self, value: Any) -> str:
        raw_value = super().to_python(value)
        value = _ORCID_URL_PREFIX.sub("", raw_value).upper()
        if raw_value and not _ORCID.fullmatch(value):
            raise forms.ValidationError(
                "Enter an ORCID iD such as 0000-0002-1825-0097.", code="invalid"
            )
        return value


class OrcidFilter(filters.CharFilter):
    field_class = OrcidField


class ErrorSerializer(serializers.Serializer):
    """Only for the schema: the body of every error answer but a validation 400 (see
    bzpeer.api_schema, which documents it on each operation)."""

    detail = serializers.CharField()


class MergedRecordSerializer(serializers.Serializer):
    """Only for the schema: the body of the 302 a merged slug answers."""

    detail = serializers.CharField()
    merged_into = serializers.CharField()
    location = serializers.URLField()


class SluggedRecord(Protocol):
    slug: str


def merged_record_redirect(
    request: Request, *, location_path: str, merged_into: str | int, detail: str, permanent: bool
) -> Response:
    """The answer for a merged record's URL: a redirect to location_path, the same endpoint for
    the survivor, with the query string kept, and a JSON body that says so (`detail`,
    `merged_into`, `location`: MergedRecordSerializer's fields). 301 when the merge is never
    undone, else 302."""
    location = request.build_absolute_uri(location_path)
    if query_string := request.META.get("QUERY_STRING"):
        location = f"{location}?{query_string}"
    body = {"detail": detail, "merged_into": merged_into, "location": location}
    answer = status.HTTP_301_MOVED_PERMANENTLY if permanent else status.HTTP_302_FOUND
    return Response(body, status=answer, headers={"Location": location})


def redirect_to_survivor(
    request: Request, *, merged: SluggedRecord, survivor: SluggedRecord, view_name: str
) -> Response:
    """302 to the same endpoint for the record `merged` was merged into, query string kept.

    One hop only: if the survivor was merged in turn, its URL redirects again, so each hop
    stays a single query."""
    return merged_record_redirect(
        request,
        location_path=reverse(view_name, kwargs={"slug": survivor.slug}),
        merged_into=survivor.slug,
        detail=f"Researcher {merged.slug} was merged into {survivor.slug}.",
        permanent=False,
    )


@csrf_exempt
def api_not_found(request: HttpRequest, unmatched_path: str) -> JsonResponse:
    """JSON 404 for API URLs no route matches (works/abc/, a malformed slug), so clients never
    have to parse the HTML error page. Only paths ending in a slash land here, so APPEND_SLASH
    still redirects works to works/. Exempt from the CSRF check, as DRF's views are for an
    anonymous client: it changes nothing, and a POST to claims/abc/withdraw/ would otherwise
    answer the HTML 403 of a missing CSRF cookie instead of this 404."""
    return JsonResponse({"detail": "Not found."}, status=404)
