"""The works search API: the works tab's full-text search, or its by-meaning mode (the full-text
matches fused with the nearest works in meaning), as JSON."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from .forms import MAX_PAGE, SEARCH_MODES
from .selectors.meaning import RRF_K, work_search_by_meaning
from .selectors.results import MAX_QUERY_LENGTH, SEARCH_PAGE_SIZE
from .selectors.works import WorkFilters, WorkHit, work_search


class WorkSearchInputSerializer(serializers.Serializer):
    q = serializers.CharField(
        max_length=MAX_QUERY_LENGTH, help_text="What to look for in titles and abstracts."
    )
    mode = serializers.ChoiceField(
        choices=list(SEARCH_MODES),
        default="words",
        help_text=(
            "`words`: full-text matches only. `meaning`: the full-text matches and the works "
            "whose title and abstract are closest in meaning to the query (a sentence-embedding "
            f"model), fused by reciprocal rank fusion (k={RRF_K}); each result's `matched_by` "
            "says which found it."
        ),
    )
    page = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, default=1)


class WorkSearchHitSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="work.id")
    title = serializers.CharField(source="work.title")
    publication_year = serializers.IntegerField(source="work.publication_year", allow_null=True)
    type = serializers.CharField(source="work.type")
    score = serializers.FloatField(source="rank", help_text="The rank's score (higher first).")
    matched_by = serializers.ListField(
        child=serializers.ChoiceField(choices=["words", "meaning"]),
        help_text="Which lists found the work: words, meaning or both.",
    )


class WorkSearchOutputSerializer(serializers.Serializer):
    mode = serializers.CharField()
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    total = serializers.IntegerField()
    meaning_available = serializers.BooleanField(
        help_text="False while no index of meaning is built: the results are by words only."
    )
    results = WorkSearchHitSerializer(many=True)


def _hit(hit: WorkHit, mode: str) -> dict[str, Any]:
    return {
        "work": hit.work,
        "rank": hit.rank,
        "matched_by": list(hit.matched_by) if mode == "meaning" else ["words"],
    }


@extend_schema(
    summary="Search works",
    description=(
        "Works whose title or abstract match the query, best first; with `mode=meaning`, "
        "fused with the works closest in meaning."
    ),
    parameters=[WorkSearchInputSerializer],
    responses={
        200: WorkSearchOutputSerializer,
        400: OpenApiResponse(description="A missing query, an unknown mode or a bad page."),
    },
)
class WorkSearchView(APIView):
    def get(self, request: Request) -> Response:
        params = WorkSearchInputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        query, mode, page = (params.validated_data[key] for key in ("q", "mode", "page"))
        if mode == "meaning":
            found = work_search_by_meaning(query=query, filters=WorkFilters(), page=page)
            results, available = found.page, found.meaning_available
        else:
            results, available = work_search(query=query, page=page), True
        body = {
            "mode": mode,
            "page": page,
            "page_size": SEARCH_PAGE_SIZE,
            "total": results.total,
            "meaning_available": available,
            "results": [_hit(hit, mode) for hit in results.items],
        }
        return Response(WorkSearchOutputSerializer(body).data)
