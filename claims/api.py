"""REST API for the signed-in user's claims (/api/v1/claims/).

One view per operation; input and output serializers are separate and hold no rules: the
views call claims.services and claims.selectors. Another user's claim is a 404. A refusal of
a service reaches the client through bzpeer.errors.api_exception_handler (400, 409, or 429 with
Retry-After), so no view maps errors itself.
"""

from __future__ import annotations

from allauth.account.internal.flows import reauthentication
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.generics import ListAPIView, RetrieveAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bzpeer.api import ApiPagination, ErrorSerializer
from researchers.models import Researcher

from . import selectors, services
from .models import Claim

REAUTHENTICATION_REFUSAL = (
    "Confirm your password first (the page at %s), then withdraw within five minutes."
)


class ClaimCheckOutputSerializer(serializers.Serializer):
    kind = serializers.CharField()
    outcome = serializers.CharField()
    score = serializers.FloatField(allow_null=True)
    detail = serializers.CharField()
    checked_at = serializers.DateTimeField()


class ClaimOutputSerializer(serializers.ModelSerializer):
    researcher = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    checks = ClaimCheckOutputSerializer(many=True, read_only=True)
    vouch_count = serializers.IntegerField(read_only=True, default=0)
    # A plain integer: the researcher JSON already names the verification-level enum.
    level = serializers.IntegerField(read_only=True, help_text="Verification level, 2 to 4.")

    class Meta:
        model = Claim
        fields = [
            "id",
            "researcher",
            "status",
            "level",
            "claimant_name",
            "statement",
            "evidence_links",
            "presented_email",
            "approved_via",
            "moderation_note",
            "decision_reason",
            "checks",
            "vouch_count",
            "checks_completed_at",
            "decided_at",
            "created_at",
        ]
        read_only_fields = fields


class ClaimInputSerializer(serializers.Serializer):
    researcher = serializers.SlugField(help_text="The slug of the record to claim.")
    claimant_name = serializers.CharField(max_length=200)
    statement = serializers.CharField(min_length=20, max_length=2000)
    presented_email = serializers.EmailField(help_text="One of your verified email addresses.")
    evidence_links = serializers.ListField(
        child=serializers.URLField(), max_length=5, required=False, default=list
    )


class ClaimListCreateView(ListAPIView):
    """GET: your own claims, newest first. POST: open a claim on a record."""

    permission_classes = [IsAuthenticated]
    serializer_class = ClaimOutputSerializer
    pagination_class = ApiPagination

    def get_queryset(self):  # noqa: ANN201
        return selectors.claims_of_user(self.request.user)

    @extend_schema(
        request=ClaimInputSerializer,
        responses={
            201: ClaimOutputSerializer,
            # 400 (the shared ValidationError body: per field, or `detail` for a refusal), 403,
            # 415 and 429 of the throttle come from bzpeer.api_schema.
            404: OpenApiResponse(ErrorSerializer, description="No researcher has this slug."),
            409: OpenApiResponse(ErrorSerializer, description="The record is already claimed."),
            429: OpenApiResponse(ErrorSerializer, description="Too many claims; retry later."),
        },
    )
    def post(self, request: Request) -> Response:
        data = ClaimInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        researcher = Researcher.objects.filter(
            slug=values.pop("researcher"), merged_into__isnull=True
        ).first()
        if researcher is None:
            raise NotFound("No such researcher.")
        claim = services.claim_submit(user=request.user, researcher=researcher, **values)
        claim = selectors.claim_for_user_or_404(user=request.user, claim_id=claim.pk)
        return Response(ClaimOutputSerializer(claim).data, status=status.HTTP_201_CREATED)


class ClaimDetailView(RetrieveAPIView):
    """One of your claims with its check results. Anyone else's claim is a 404."""

    permission_classes = [IsAuthenticated]
    serializer_class = ClaimOutputSerializer

    def get_object(self) -> Claim:
        return selectors.claim_for_user_or_404(user=self.request.user, claim_id=self.kwargs["pk"])


class ClaimWithdrawView(APIView):
    """Withdraw one of your claims, pending or approved. Anyone else's claim is a 404; a session
    that has not confirmed its password in the last five minutes is refused (403)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={
            200: ClaimOutputSerializer,
            400: OpenApiResponse(ErrorSerializer, description="The claim cannot be withdrawn."),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        claim = selectors.claim_for_user_or_404(user=request.user, claim_id=pk)
        # As on the account page (allauth's reauthentication), without the page to ask on:
        # the session must have confirmed the password (or a 2FA code) in the last minutes.
        if reauthentication.is_reauthentication_required(request._request, app=""):
            raise PermissionDenied(REAUTHENTICATION_REFUSAL % reverse("account_reauthenticate"))
        services.claim_withdraw(claim=claim, user=request.user)
        claim = selectors.claim_for_user_or_404(user=request.user, claim_id=pk)
        return Response(ClaimOutputSerializer(claim).data)
