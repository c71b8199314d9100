"""Read-only REST API for researcher records (/api/v1/researchers/).

The pagination, the identifier filters and the merged-record redirect defined here are used by
publications.api as well, so every list in the API pages and validates the same way.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.db.models import QuerySet
from django.urls import reverse
from django_filters import rest_framework as filters
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.generics import ListAPIView, RetrieveAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response

from .models import Researcher
from .search import researchers_matching_name
from .selectors import researcher_by_slug, researchers_public

MAX_PAGE_SIZE = 100
_WHOLE_NUMBER = re.compile(r"[0-9]+")
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


class ResearcherFilter(filters.FilterSet):
    search = filters.CharFilter(
        method="filter_name",
        max_length=200,
        help_text="Part of a name, in any order, case or accents: 'Zhong Zhizhen' finds Zhizhen "
        "Zhong. Results come best match first.",
    )
    q = filters.CharFilter(method="filter_name", max_length=200, help_text="Same as search.")
    openalex_id = OpenAlexIdFilter(
        field_name="openalex_id", entity_letter="A", help_text="OpenAlex author id, exact."
    )
    orcid = OrcidFilter(field_name="orcid", help_text="ORCID iD, exact.")

    class Meta:
        model = Researcher
        fields = ["search", "q", "openalex_id", "orcid"]

    def filter_name(
        self, queryset: QuerySet[Researcher], name: str, value: str
    ) -> QuerySet[Researcher]:
        # q is an alias: when both are given, search wins instead of the two being ANDed.
        if name == "q" and self.form.cleaned_data.get("search"):
            return queryset
        return researchers_matching_name(queryset, value)


class ResearcherOutputSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(
        view_name="api:researcher-detail", lookup_field="slug"
    )
    works_url = serializers.HyperlinkedIdentityField(
        view_name="api:researcher-works", lookup_field="slug"
    )
    verification_level_label = serializers.CharField(
        source="get_verification_level_display", read_only=True
    )
    claimed = serializers.BooleanField(source="is_claimed", read_only=True)

    class Meta:
        model = Researcher
        fields = [
            "slug",
            "url",
            "works_url",
            "display_name",
            "openalex_id",
            "orcid",
            "works_count",
            "cited_by_count",
            "h_index",
            "i10_index",
            "topics_count",
            "verification_level",
            "verification_level_label",
            "trust_score",
            "claimed",
        ]
        read_only_fields = fields


class MergedRecordSerializer(serializers.Serializer):
    """Only for the schema: the body of the 302 a merged slug answers."""

    detail = serializers.CharField()
    merged_into = serializers.CharField()
    location = serializers.URLField()


def redirect_to_survivor(
    request: Request, *, merged: Researcher, survivor: Researcher, view_name: str
) -> Response:
    """302 to the same endpoint for the record `merged` was merged into, query string kept.

    One hop only: if the survivor was merged in turn, its URL redirects again, so each hop
    stays a single query."""
    location = request.build_absolute_uri(reverse(view_name, kwargs={"slug": survivor.slug}))
    if query_string := request.META.get("QUERY_STRING"):
        location = f"{location}?{query_string}"
    body = {
        "detail": f"Researcher {merged.slug} was merged into {survivor.slug}.",
        "merged_into": survivor.slug,
        "location": location,
    }
    return Response(body, status=status.HTTP_302_FOUND, headers={"Location": location})


def researcher_or_404(slug: str) -> Researcher:
    researcher = researcher_by_slug(slug)
    if researcher is None:
        raise NotFound(f"No researcher has the slug {slug!r}.")
    return researcher


@extend_schema_view(
    get=extend_schema(
        summary="List researchers",
        description="Researcher records, most cited first, or best name match first when "
        "searching. Records merged into another one are left out.",
    )
)
class ResearcherListView(ListAPIView):
    serializer_class = ResearcherOutputSerializer
    pagination_class = ApiPagination
    filter_backends = [filters.DjangoFilterBackend]
    filterset_class = ResearcherFilter

    def get_queryset(self) -> QuerySet[Researcher]:
        # -cited_by_count is indexed; id makes the order total so pages never overlap.
        return researchers_public().order_by("-cited_by_count", "id")


@extend_schema_view(
    get=extend_schema(
        summary="Get a researcher",
        description=f"One researcher record by slug. {MERGED_REDIRECT_DESCRIPTION}",
        responses={
            200: ResearcherOutputSerializer,
            302: OpenApiResponse(MergedRecordSerializer, description=MERGED_REDIRECT_DESCRIPTION),
            404: OpenApiResponse(description="No researcher has this slug."),
        },
    )
)
class ResearcherDetailView(RetrieveAPIView):
    serializer_class = ResearcherOutputSerializer
    filter_backends: list = []
    lookup_field = "slug"

    def get_queryset(self) -> QuerySet[Researcher]:
        # Only for the schema generator; retrieve() goes through the selector.
        return Researcher.objects.all()

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        researcher = researcher_or_404(kwargs["slug"])
        if researcher.merged_into is not None:
            return redirect_to_survivor(
                request,
                merged=researcher,
                survivor=researcher.merged_into,
                view_name="api:researcher-detail",
            )
        return Response(self.get_serializer(researcher).data)
