"""Read-only REST API for works (/api/v1/works/ and /api/v1/researchers/<slug>/works/)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django import forms
from django.db.models import QuerySet
from django.urls import reverse
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ParseError
from rest_framework.generics import ListAPIView, RetrieveAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from bzpeer.api import (
    MERGED_REDIRECT_DESCRIPTION,
    ApiPagination,
    MergedRecordSerializer,
    OpenAlexIdFilter,
    merged_record_redirect,
    redirect_to_survivor,
)
from researchers.api import researcher_or_404
from researchers.models import Researcher

from .api_novelty import WorkNoveltyOutputSerializer
from .models import (
    Authorship,
    FormerOpenAlexWorkId,
    RelatedWork,
    Source,
    Work,
    WorkNovelty,
    WorkTopic,
)
from .selectors import (
    CITATION_SORTS,
    normalize_arxiv_id,
    normalize_doi,
    work_citing,
    work_references,
    work_related,
    work_survivor_id,
    works_for_researcher,
    works_newest_first,
    works_with_details,
)

# The DOI handbook's shape: directory indicator "10.", a registrant code, a slash, a suffix.
_DOI = re.compile(r"10\.[0-9.]+/\S+")


class DoiField(forms.CharField):
    """A DOI in any usual spelling (https://doi.org/..., doi:..., any case), stored form out."""

    def to_python(self, value: Any) -> str:
        raw_value = super().to_python(value)
        value = normalize_doi(raw_value)
        # Checked on the raw value: a bare "https://doi.org/" must not become "no filter".
        if raw_value and not _DOI.fullmatch(value):
            raise forms.ValidationError(
                "Enter a DOI such as 10.7717/peerj.4375 or https://doi.org/10.7717/peerj.4375.",
                code="invalid",
            )
        return value


class DoiFilter(filters.CharFilter):
    field_class = DoiField


class ArxivIdField(forms.CharField):
    """An arXiv id in any usual spelling; old and new id schemes are too varied to check, but a
    prefix alone ("arXiv:") is refused rather than read as no filter."""

    def to_python(self, value: Any) -> str:
        raw_value = super().to_python(value)
        value = normalize_arxiv_id(raw_value)
        if raw_value and not value:
            raise forms.ValidationError("Enter an arXiv id such as 2101.00001.", code="invalid")
        return value


class ArxivIdFilter(filters.CharFilter):
    field_class = ArxivIdField


class WorkFilter(filters.FilterSet):
    openalex_id = OpenAlexIdFilter(
        field_name="openalex_id",
        entity_letter="W",
        method="filter_openalex_id",
        help_text="OpenAlex work id, exact. An id OpenAlex merged into another (or that bzpeer "
        "found to be the same work as another) finds the work it now lives in.",
    )
    doi = DoiFilter(
        field_name="doi",
        max_length=300,
        help_text="DOI, exact after normalising: case and a https://doi.org/ or doi: prefix "
        "do not matter.",
    )
    arxiv_id = ArxivIdFilter(
        field_name="arxiv_id",
        max_length=80,
        help_text="arXiv id, exact; an arXiv: or https://arxiv.org/abs/ prefix and a version "
        "suffix (v2) are ignored.",
    )

    class Meta:
        model = Work
        fields = ["openalex_id", "doi", "arxiv_id"]

    def filter_openalex_id(self, queryset: QuerySet[Work], name: str, value: str) -> QuerySet[Work]:
        if not value:
            return queryset
        # The ids as one UNION, so the filter is a semi-join on the primary key: written as
        # openalex_id = ... OR pk IN (...), PostgreSQL scanned every work (1.2 s at 1M works).
        current = Work.objects.filter(openalex_id=value).order_by().values("pk")
        former = FormerOpenAlexWorkId.objects.filter(openalex_id=value).order_by().values("work")
        return queryset.filter(pk__in=current.union(former, all=True))


class VenueOutputSerializer(serializers.ModelSerializer):
    short_name = serializers.CharField(read_only=True)

    class Meta:
        model = Source
        fields = ["id", "openalex_id", "name", "short_name"]
        read_only_fields = fields


class WorkTopicOutputSerializer(serializers.ModelSerializer):
    name = serializers.CharField(source="topic.name", read_only=True)
    code = serializers.CharField(source="topic.code", read_only=True)
    external_id = serializers.CharField(source="topic.external_id", read_only=True)

    class Meta:
        model = WorkTopic
        fields = ["name", "code", "external_id", "score"]
        read_only_fields = fields


class AuthorOutputSerializer(serializers.ModelSerializer):
    # allow_null: an author the source gave no id for has no researcher, and these read null.
    slug = serializers.CharField(source="researcher.slug", allow_null=True, read_only=True)
    openalex_id = serializers.CharField(
        source="researcher.openalex_id", allow_null=True, read_only=True
    )
    display_name = serializers.CharField(
        source="researcher.display_name", allow_null=True, read_only=True
    )

    class Meta:
        model = Authorship
        fields = ["position", "raw_name", "slug", "openalex_id", "display_name"]
        read_only_fields = fields


class WorkOutputSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:work-detail")
    venue = VenueOutputSerializer(source="source", allow_null=True, read_only=True)
    topics = WorkTopicOutputSerializer(source="work_topics", many=True, read_only=True)
    authors = AuthorOutputSerializer(source="authorships", many=True, read_only=True)
    # Null until the novelty run has reached the work.
    novelty = serializers.SerializerMethodField()

    class Meta:
        model = Work
        fields = [
            "id",
            "url",
            "openalex_id",
            "doi",
            "arxiv_id",
            "title",
            "abstract",
            "type",
            "publication_year",
            "publication_date",
            "venue",
            "cited_by_count",
            "topics",
            "authors",
            "novelty",
        ]
        read_only_fields = fields

    @extend_schema_field(WorkNoveltyOutputSerializer(allow_null=True))
    def get_novelty(self, work: Work) -> dict[str, Any] | None:
        try:
            novelty = work.novelty
        except WorkNovelty.DoesNotExist:
            return None
        return WorkNoveltyOutputSerializer(novelty).data


@extend_schema_view(
    get=extend_schema(
        summary="List works",
        description="Works, newest first by the best date known (a work with only a year at its "
        "year; works with no date last).",
    )
)
class WorkListView(ListAPIView):
    serializer_class = WorkOutputSerializer
    pagination_class = ApiPagination
    filter_backends = [filters.DjangoFilterBackend]
    filterset_class = WorkFilter

    def get_queryset(self) -> QuerySet[Work]:
        return works_newest_first(works_with_details())


MERGED_WORK_REDIRECT_DESCRIPTION = (
    "When the id belongs to a work found to be another one (two records of one paper, or "
    "OpenAlex merged the two), the answer is a 301 whose Location header (also given as "
    "`location` in the JSON body) is this URL for the surviving work, whose id is "
    "`merged_into`; the survivor answers 200, never another redirect. Permanent, as the work "
    "page's redirect: works found to be one are not split again."
)


class MergedWorkRedirectSerializer(serializers.Serializer):
    """Only for the schema: the body of the 301 a merged-away work's id answers."""

    detail = serializers.CharField()
    merged_into = serializers.IntegerField()
    location = serializers.URLField()


@extend_schema_view(
    get=extend_schema(
        summary="Get a work",
        description=MERGED_WORK_REDIRECT_DESCRIPTION,
        parameters=[
            OpenApiParameter(
                "Location",
                type=OpenApiTypes.URI,
                location=OpenApiParameter.HEADER,
                response=[301],
                description="The surviving work's URL, the query string kept.",
            )
        ],
        responses={
            200: WorkOutputSerializer,
            301: OpenApiResponse(
                MergedWorkRedirectSerializer, description=MERGED_WORK_REDIRECT_DESCRIPTION
            ),
            404: OpenApiResponse(description="No such work."),
        },
    )
)
class WorkDetailView(RetrieveAPIView):
    serializer_class = WorkOutputSerializer
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[Work]:
        return works_with_details()

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        work_id = kwargs["pk"]
        # The URL converter already guarantees digits; filter().first() also turns an id past
        # the bigint range into "no row" instead of a database error.
        work = self.get_queryset().filter(pk=work_id).first()
        if work is not None:
            return Response(self.get_serializer(work).data)
        # A work found to be another one (the importer merged them) lives at the survivor's.
        survivor_id = work_survivor_id(work_id)
        if survivor_id is None:
            raise NotFound(f"No work has the id {work_id}.")
        return merged_record_redirect(
            request,
            location_path=reverse("api:work-detail", kwargs={"pk": survivor_id}),
            merged_into=survivor_id,
            detail=f"Work {work_id} was merged into work {survivor_id}.",
            permanent=True,
        )


@extend_schema_view(
    get=extend_schema(
        summary="List a researcher's works",
        description="The researcher's works, newest first by the best date known (a work with only "
        "a year at its year; works with no date last). " + MERGED_REDIRECT_DESCRIPTION,
        responses={
            200: WorkOutputSerializer(many=True),
            302: OpenApiResponse(MergedRecordSerializer, description=MERGED_REDIRECT_DESCRIPTION),
            404: OpenApiResponse(description="No researcher has this slug."),
        },
    )
)
class ResearcherWorksView(ListAPIView):
    serializer_class = WorkOutputSerializer
    pagination_class = ApiPagination
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[Work]:
        # The schema generator inspects the queryset without a request, hence no researcher.
        if getattr(self, "swagger_fake_view", False):
            return Work.objects.none()
        return works_for_researcher(self.researcher)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        self.researcher: Researcher = researcher_or_404(kwargs["slug"])
        if self.researcher.merged_into is not None:
            return redirect_to_survivor(
                request,
                merged=self.researcher,
                survivor=self.researcher.merged_into,
                view_name="api:researcher-works",
            )
        return super().list(request, *args, **kwargs)


class CitedWorkOutputSerializer(serializers.ModelSerializer):
    """A work in a reference or citation list: enough to show and follow it."""

    url = serializers.HyperlinkedIdentityField(view_name="api:work-detail")

    class Meta:
        model = Work
        fields = [
            "id",
            "url",
            "title",
            "publication_year",
            "publication_date",
            "doi",
            "cited_by_count",
        ]
        read_only_fields = fields


CITATION_SORT_PARAMETER = OpenApiParameter(
    "sort",
    OpenApiTypes.STR,
    enum=list(CITATION_SORTS),
    description="citations: the most cited first (default); year: the newest first.",
)
CITATION_LIST_PARAMETERS = [
    CITATION_SORT_PARAMETER,
    OpenApiParameter(
        "Location",
        type=OpenApiTypes.URI,
        location=OpenApiParameter.HEADER,
        response=[301],
        description="The same list of the surviving work, the query string kept.",
    ),
]
CITATION_LIST_RESPONSES = {
    200: CitedWorkOutputSerializer(many=True),
    301: OpenApiResponse(
        MergedWorkRedirectSerializer,
        description="The id belongs to a work merged into another: this list of the survivor.",
    ),
}


class _ListOfAWorkView(ListAPIView):
    """A list hanging off one work, paged; a merged-away work's id answers 301 to the
    survivor's list, an unknown id 404."""

    pagination_class = ApiPagination
    filter_backends: list = []
    url_name = ""

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        work_id = kwargs["pk"]
        if not Work.objects.filter(pk=work_id).exists():
            survivor_id = work_survivor_id(work_id)
            if survivor_id is None:
                raise NotFound(f"No work has the id {work_id}.")
            return merged_record_redirect(
                request,
                location_path=reverse(self.url_name, kwargs={"pk": survivor_id}),
                merged_into=survivor_id,
                detail=f"Work {work_id} was merged into work {survivor_id}.",
                permanent=True,
            )
        return super().list(request, *args, **kwargs)


class _CitationListView(_ListOfAWorkView):
    """A work's citation neighbours; an unknown sort is a 400."""

    serializer_class = CitedWorkOutputSerializer
    # The selector of the list: work_references or work_citing.
    works: Callable[..., QuerySet[Work]] = staticmethod(work_references)

    def get_queryset(self) -> QuerySet[Work]:
        sort = self.request.query_params.get("sort", "citations")
        if sort not in CITATION_SORTS:
            raise ParseError(f"sort must be one of: {', '.join(CITATION_SORTS)}.")
        return self.works(self.kwargs["pk"], sort=sort)


@extend_schema_view(
    get=extend_schema(
        summary="A work's references",
        description="The works held here that this work cites (references to works not held "
        "are linked when they arrive).",
        parameters=CITATION_LIST_PARAMETERS,
        responses=CITATION_LIST_RESPONSES,
    )
)
class WorkReferencesView(_CitationListView):
    url_name = "api:work-references"
    works = staticmethod(work_references)


@extend_schema_view(
    get=extend_schema(
        summary="The works citing a work",
        description="The works held here that cite this work.",
        parameters=CITATION_LIST_PARAMETERS,
        responses=CITATION_LIST_RESPONSES,
    )
)
class WorkCitationsView(_CitationListView):
    url_name = "api:work-citations"
    works = staticmethod(work_citing)


class RelatedWorkOutputSerializer(serializers.ModelSerializer):
    """A related work: its rank, the work, the counts behind it and the reason in words."""

    work = CitedWorkOutputSerializer(source="related")
    reason = serializers.CharField(
        help_text='In words: "cited together by 14 works, shares 9 references".'
    )

    class Meta:
        model = RelatedWork
        fields = ["rank", "work", "cocitations", "shared_references", "score", "reason"]
        read_only_fields = fields
        extra_kwargs = {
            "cocitations": {"help_text": "Works held here that cite both works."},
            "shared_references": {"help_text": "Works held here that both works cite."},
            "score": {
                "help_text": "Salton's cosine of the two works' citation links (citing works "
                "and references): shared links over the geometric mean of their numbers, "
                "0 to 1."
            },
        }


@extend_schema_view(
    get=extend_schema(
        summary="A work's related works",
        description="Up to ten works related to this one by co-citation (cited together by "
        "the same works) and bibliographic coupling (citing the same works), best first, each "
        "with the counts and the reason in words. Recomputed as citations arrive.",
        parameters=CITATION_LIST_PARAMETERS[1:],
        responses={
            200: RelatedWorkOutputSerializer(many=True),
            301: CITATION_LIST_RESPONSES[301],
        },
    )
)
class WorkRelatedView(_ListOfAWorkView):
    url_name = "api:work-related"
    serializer_class = RelatedWorkOutputSerializer

    def get_queryset(self) -> QuerySet[RelatedWork]:
        return work_related(self.kwargs["pk"])
