"""Read-only REST API for researcher records (/api/v1/researchers/).

Pagination, the identifier filters and the merged-record redirect come from bzpeer.api, shared
by every app's API views.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django_filters import rest_framework as filters
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.generics import ListAPIView, RetrieveAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from bzpeer.api import (
    MERGED_REDIRECT_DESCRIPTION,
    ApiPagination,
    MergedRecordSerializer,
    OpenAlexIdFilter,
    OrcidFilter,
    redirect_to_survivor,
)

from .models import Researcher
from .name_search import researchers_matching_name
from .selectors import researcher_by_slug, researchers_public


class ResearcherFilter(filters.FilterSet):
    search = filters.CharFilter(
        method="filter_name",
        max_length=200,
        help_text="Part of a name, in any order, case or accents: 'Zhong Zhizhen' finds Zhizhen "
        "Zhong. Results come best match first.",
    )
    q = filters.CharFilter(method="filter_name", max_length=200, help_text="Same as search.")
    openalex_id = OpenAlexIdFilter(
        field_name="openalex_id",
        entity_letter="A",
        method="filter_openalex_id",
        help_text="OpenAlex author id, exact. An id OpenAlex merged into another finds the "
        "record it was merged into.",
    )
    orcid = OrcidFilter(field_name="orcid", help_text="ORCID iD, exact.")

    class Meta:
        model = Researcher
        fields = ["search", "q", "openalex_id", "orcid"]

    def filter_openalex_id(
        self, queryset: QuerySet[Researcher], name: str, value: str
    ) -> QuerySet[Researcher]:
        if not value:
            return queryset
        # A merged-away record keeps its id (and is left out of lists): its survivor answers.
        # The ids as one UNION, so the filter is a semi-join on the primary key: written as
        # openalex_id = ... OR pk IN (...), PostgreSQL scanned every researcher (0.6 s at 1M
        # works).
        current = Researcher.objects.filter(openalex_id=value).order_by().values("pk")
        merged_into = (
            Researcher.objects.filter(openalex_id=value, merged_into__isnull=False)
            .order_by()
            .values("merged_into")
        )
        return queryset.filter(pk__in=current.union(merged_into, all=True))

    def filter_name(
        self, queryset: QuerySet[Researcher], name: str, value: str
    ) -> QuerySet[Researcher]:
        # q is an alias: when both are given, search wins instead of the two being ANDed.
        if name == "q" and self.form.cleaned_data.get("search"):
            return queryset
        return researchers_matching_name(queryset, value)


class StatedFiguresSerializer(serializers.Serializer):
    """The figures a source states for the researcher's whole record, which can count works
    bzpeer does not hold; works_count, cited_by_count, h_index and i10_index beside them are
    bzpeer's own, computed from the works it holds."""

    source = serializers.CharField(
        source="stated_figures_source", help_text="Who states them: 'openalex'."
    )
    source_label = serializers.CharField(source="stated_figures_source_label")
    as_of = serializers.DateField(
        source="stated_figures_as_of", allow_null=True, help_text="The source record's date."
    )
    works_count = serializers.IntegerField(source="stated_works_count", allow_null=True)
    cited_by_count = serializers.IntegerField(source="stated_cited_by_count", allow_null=True)
    h_index = serializers.IntegerField(source="stated_h_index", allow_null=True)
    i10_index = serializers.IntegerField(source="stated_i10_index", allow_null=True)
    two_year_mean_citedness = serializers.FloatField(
        source="stated_two_year_mean_citedness", allow_null=True
    )


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
    stated_figures = serializers.SerializerMethodField(
        help_text="What a source states for the whole record (null where none does), beside "
        "works_count, cited_by_count, h_index and i10_index, which bzpeer computes from the "
        "works it holds."
    )

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
            "stated_figures",
            "verification_level",
            "verification_level_label",
            "trust_score",
            "claimed",
        ]
        read_only_fields = fields

    @extend_schema_field(StatedFiguresSerializer(allow_null=True))
    def get_stated_figures(self, researcher: Researcher) -> dict[str, Any] | None:
        if not researcher.stated_figures_source:
            return None
        return dict(StatedFiguresSerializer(researcher).data)


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
