"""Read-only API of the collaborator graph: graph slices, collaboration paths, COI checks."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bzpeer.api import MERGED_REDIRECT_DESCRIPTION, MergedRecordSerializer, redirect_to_survivor
from researchers.api import researcher_or_404
from researchers.models import Researcher
from researchers.selectors import researchers_public

from . import selectors


class PathInputSerializer(serializers.Serializer):
    source = serializers.SlugField(help_text="Slug of the first researcher.")
    target = serializers.SlugField(help_text="Slug of the second researcher.")


class CoiInputSerializer(serializers.Serializer):
    researchers = serializers.CharField(help_text="Comma-separated researcher slugs (2 to 50).")
    years = serializers.IntegerField(
        min_value=0,
        max_value=50,
        default=selectors.COI_DEFAULT_YEARS,
        help_text="Coauthorship counts when the joint work was published in this many years.",
    )

    def validate_researchers(self, value: str) -> list[str]:
        slugs = list(dict.fromkeys(s.strip() for s in value.split(",") if s.strip()))
        if not 2 <= len(slugs) <= selectors.COI_MAX_RESEARCHERS:
            raise serializers.ValidationError(
                f"Give between 2 and {selectors.COI_MAX_RESEARCHERS} distinct researcher slugs."
            )
        return slugs


def _public_by_slug(slug: str) -> Researcher:
    """The record, or its survivor when it was merged (a path or a COI check is about people)."""
    researcher = researcher_or_404(slug)
    return researcher.merged_into or researcher


@extend_schema(
    summary="A researcher's graph slice",
    description=(
        "The researcher, their close collaborators, recent and most cited works, main topics "
        "and institutions, as nodes and edges. Node ids are typed (r:, w:, t:, i:); each node "
        "has a type, label, url and weight; each edge a kind (coauthor, authored, about, "
        "affiliated) and a weight. Every kind is capped (see `caps`). Cached, and renewed when "
        "the researcher's works or coauthor edges change."
    ),
    responses={
        200: OpenApiTypes.OBJECT,
        302: OpenApiResponse(MergedRecordSerializer, description=MERGED_REDIRECT_DESCRIPTION),
        404: OpenApiResponse(description="No such slug."),
    },
)
class ResearcherGraphView(APIView):
    def get(self, request: Request, slug: str) -> Response:
        researcher = researcher_or_404(slug)
        if researcher.merged_into is not None:
            return redirect_to_survivor(
                request,
                merged=researcher,
                survivor=researcher.merged_into,
                view_name="api:researcher-graph",
            )
        return Response(selectors.graph_slice_for(researcher))


@extend_schema(
    summary="How are two researchers connected?",
    description=(
        "The shortest chain of coauthors between two researchers (at most "
        f"{selectors.MAX_PATH_HOPS} hops), with the joint works of each hop. `found` is false, "
        "with a `reason`, when there is none."
    ),
    parameters=[PathInputSerializer],
    responses={
        200: OpenApiTypes.OBJECT,
        404: OpenApiResponse(description="No researcher has the source or the target slug."),
    },
)
class CollaborationPathView(APIView):
    def get(self, request: Request) -> Response:
        params = PathInputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        source = _public_by_slug(params.validated_data["source"])
        target = _public_by_slug(params.validated_data["target"])
        return Response(selectors.collaboration_path(source, target))


@extend_schema(
    summary="Conflict-of-interest check",
    description=(
        "Every pair among the given researchers that coauthored a work published in the last "
        "`years` years (default 3), or that shares a current institution, with the evidence: "
        "the joint works (up to 10 per pair, with the total) and the institutions."
    ),
    parameters=[CoiInputSerializer],
    responses={200: OpenApiTypes.OBJECT},
)
class ConflictOfInterestView(APIView):
    def get(self, request: Request) -> Response:
        params = CoiInputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        slugs: list[str] = params.validated_data["researchers"]
        found = {r.slug: r for r in researchers_public().filter(slug__in=slugs)}
        unknown = [slug for slug in slugs if slug not in found]
        if unknown:
            raise ValidationError({"researchers": [f"Unknown researcher slugs: {unknown}"]})
        result: dict[str, Any] = selectors.conflicts_of_interest(
            list(found.values()), years=params.validated_data["years"]
        )
        return Response(result)
