"""REST API of direct collaboration (/api/v1/invitations/, conversations/, blocks/, reports).

One view per operation; input and output serializers are separate and hold no rules: the
views call collaboration.services and collaboration.selectors, the same code as the pages.
Someone else's invitation, conversation or message is a 404. Service refusals reach the client
through bzpeer.errors.api_exception_handler ({"detail": ...} with 400, 403, 409, or 429 and
Retry-After). Session authentication with CSRF, as the rest of the API: anonymous is a 403.
"""

from __future__ import annotations

import re

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bzpeer.api import ErrorSerializer
from researchers.models import Researcher

from . import selectors, services
from .models import MESSAGE_MAX_LENGTH, PURPOSE_MAX_LENGTH, InvitationKind, InvitationStatus

# Input bounds: the rules (50 to 1,000 characters after stripping, and so on) are the
# services'; these only keep absurd payloads from reaching them.
_MAX_ID = 2**63 - 1
# ASCII digits only (str.isdigit accepts "²", which int() refuses), and few of them.
_PAGE = re.compile(r"[0-9]{1,6}")
# A text may arrive with CRLF line breaks (two characters where the rule counts one): twice
# the rule's length is still a bound.


def _error(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorSerializer, description=description)


# 400 (a refusal's `detail` or DRF's field errors), 415 and the throttle's 429 are documented
# on every operation by bzpeer.api_schema; the views declare what is particular to them.
FORBIDDEN = _error("Not signed in, the CSRF token is missing, or the rule refuses it.")
NOT_FOUND = _error("Not yours, or no such object.")


def _researcher_or_404(slug: str) -> Researcher:
    researcher = Researcher.objects.filter(slug=slug, merged_into__isnull=True).first()
    if researcher is None:
        raise NotFound("No such researcher.")
    return researcher


def _own_name(request: Request) -> str:
    record = Researcher.objects.filter(claimed_by=request.user).only("display_name").first()
    return record.display_name if record is not None else "You"


# --- serializers -------------------------------------------------------------------------------


class InvitationInputSerializer(serializers.Serializer):
    recipient = serializers.SlugField(max_length=200, help_text="The slug of the record invited.")
    kind = serializers.ChoiceField(choices=InvitationKind.choices)
    purpose = serializers.CharField(
        max_length=2 * PURPOSE_MAX_LENGTH,
        allow_blank=True,
        trim_whitespace=False,
        help_text="What you would like to do together: 50 to 1,000 characters.",
    )
    works = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=_MAX_ID),
        max_length=20,
        required=False,
        default=list,
        help_text="Ids of works of yours or theirs that anchor the invitation.",
    )
    topics = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=_MAX_ID),
        max_length=20,
        required=False,
        default=list,
        help_text="Ids of topics of your works or theirs.",
    )


class InvitationCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=InvitationStatus.choices)


class AnchorWorkSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()


class AnchorTopicSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class InvitationOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=InvitationKind.choices)
    status = serializers.ChoiceField(
        choices=InvitationStatus.choices,
        help_text="A pending invitation past its 30 days is `expired`.",
    )
    purpose = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    responded_at = serializers.DateTimeField(allow_null=True)
    is_received = serializers.BooleanField()
    other_name = serializers.CharField()
    other_slug = serializers.CharField(allow_null=True)
    conversation = serializers.IntegerField(source="conversation_id", allow_null=True)
    works = AnchorWorkSerializer(many=True)
    topics = AnchorTopicSerializer(many=True)

    def to_representation(self, instance: selectors.InvitationSummary) -> dict:
        data = super().to_representation(
            {
                **vars(instance),
                "works": [{"id": i, "title": t} for i, t in instance.anchor_works],
                "topics": [{"id": i, "name": n} for i, n in instance.anchor_topics],
            }
        )
        return data


class AcceptedSerializer(serializers.Serializer):
    conversation = serializers.IntegerField(help_text="The id of the conversation it opened.")


class ConversationOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    other_name = serializers.CharField()
    other_slug = serializers.CharField(allow_null=True)
    last_message_at = serializers.DateTimeField(allow_null=True)
    last_message_preview = serializers.CharField(allow_blank=True)
    unread_count = serializers.IntegerField()
    muted = serializers.BooleanField()
    other_unavailable = serializers.BooleanField()


class ConversationPageSerializer(serializers.Serializer):
    page = serializers.IntegerField()
    has_next = serializers.BooleanField()
    results = ConversationOutputSerializer(many=True)


class MessageOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    author_is_viewer = serializers.BooleanField()
    author_name = serializers.CharField()
    body = serializers.CharField(allow_blank=True, help_text="Empty when deleted or hidden.")
    state = serializers.ChoiceField(choices=[(s, s) for s in selectors.threads.MESSAGE_STATES])
    created_at = serializers.DateTimeField()


class MessageListSerializer(serializers.Serializer):
    can_send = serializers.BooleanField()
    reason = serializers.CharField(allow_blank=True, help_text="Why you cannot write, if so.")
    has_earlier = serializers.BooleanField(help_text="Older messages than these exist.")
    results = MessageOutputSerializer(many=True)


class MessageInputSerializer(serializers.Serializer):
    body = serializers.CharField(
        max_length=2 * MESSAGE_MAX_LENGTH,
        allow_blank=True,
        trim_whitespace=False,
        help_text="Plain text, 1 to 10,000 characters.",
    )


class BlockInputSerializer(serializers.Serializer):
    researcher = serializers.SlugField(max_length=200, help_text="The slug of the record.")


class ReportInputSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2_000, help_text="What is wrong with it.")


class ReportCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()


# --- invitations -------------------------------------------------------------------------------


class InvitationListCreateView(APIView):
    """GET: the invitations you received (`box=received`, the default) or sent, pending ones
    first, then the newest (at most 50). POST: invite the claimant of a record."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[
            OpenApiParameter("box", str, enum=list(selectors.invitations.BOXES), required=False)
        ],
        responses={200: InvitationOutputSerializer(many=True), 403: FORBIDDEN},
    )
    def get(self, request: Request) -> Response:
        box = request.query_params.get("box", "received")
        if box not in selectors.invitations.BOXES:
            raise serializers.ValidationError({"box": ["Choose received or sent."]})
        invitations = selectors.invitations_for(request.user, box=box)
        return Response(InvitationOutputSerializer(invitations, many=True).data)

    @extend_schema(
        request=InvitationInputSerializer,
        responses={
            201: InvitationCreatedSerializer,
            403: _error("Not signed in, no approved L3/L4 claim, blocked, or not accepted."),
            404: _error("No researcher has this slug."),
            409: _error("A pending invitation already joins you two."),
            429: _error("Over your invitations for 24 hours; the Retry-After header says when."),
        },
    )
    def post(self, request: Request) -> Response:
        data = InvitationInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        invitation = services.invitation_send(
            sender=request.user,
            recipient_researcher=_researcher_or_404(values["recipient"]),
            kind=values["kind"],
            purpose=values["purpose"],
            work_ids=values["works"],
            topic_ids=values["topics"],
        )
        return Response(
            InvitationCreatedSerializer({"id": invitation.pk, "status": invitation.status}).data,
            status=status.HTTP_201_CREATED,
        )


class InvitationAcceptView(APIView):
    """Accept an invitation you received: the conversation opens."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={
            200: AcceptedSerializer,
            403: FORBIDDEN,
            404: NOT_FOUND,
            409: _error("The invitation is no longer pending."),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        conversation = services.invitation_accept(user=request.user, invitation_id=pk)
        return Response(AcceptedSerializer({"conversation": conversation.pk}).data)


class _InvitationAnswerView(APIView):
    permission_classes = [IsAuthenticated]

    def answer(self, request: Request, pk: int) -> None:
        raise NotImplementedError

    @extend_schema(
        request=None,
        responses={
            200: InvitationOutputSerializer,
            403: FORBIDDEN,
            404: NOT_FOUND,
            409: _error("The invitation is no longer pending."),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        self.answer(request, pk)
        return Response(InvitationOutputSerializer(selectors.invitation_for(request.user, pk)).data)


class InvitationDeclineView(_InvitationAnswerView):
    """Decline an invitation you received (its sender may not invite you for 90 days)."""

    def answer(self, request: Request, pk: int) -> None:
        services.invitation_decline(user=request.user, invitation_id=pk)


class InvitationWithdrawView(_InvitationAnswerView):
    """Withdraw an invitation you sent that is still pending."""

    def answer(self, request: Request, pk: int) -> None:
        services.invitation_withdraw(user=request.user, invitation_id=pk)


# --- conversations and messages ----------------------------------------------------------------


class ConversationListView(APIView):
    """Your conversations, latest activity first, 30 a page, each with its unread count."""

    permission_classes = [IsAuthenticated]
    per_page = 30

    @extend_schema(
        parameters=[OpenApiParameter("page", int, required=False, description="From 1.")],
        responses={200: ConversationPageSerializer, 403: FORBIDDEN},
    )
    def get(self, request: Request) -> Response:
        raw = request.query_params.get("page", "1")
        if not _PAGE.fullmatch(raw) or not 1 <= int(raw) <= 100_000:
            raise serializers.ValidationError({"page": ["Enter a whole number from 1."]})
        page = int(raw)
        conversations, has_next = selectors.conversations_for(
            request.user, page=page, per_page=self.per_page
        )
        return Response(
            ConversationPageSerializer(
                {"page": page, "has_next": has_next, "results": conversations}
            ).data
        )


class ConversationMessagesView(APIView):
    """GET: the last 200 messages of one of your conversations, oldest first.
    POST: write in it (plain text)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: MessageListSerializer, 403: FORBIDDEN, 404: NOT_FOUND})
    def get(self, request: Request, pk: int) -> Response:
        thread = selectors.conversation_for(request.user, pk)
        return Response(
            MessageListSerializer(
                {
                    "can_send": thread.can_send,
                    "reason": thread.reason,
                    "has_earlier": thread.has_earlier,
                    "results": thread.messages,
                }
            ).data
        )

    @extend_schema(
        request=MessageInputSerializer,
        responses={
            201: MessageOutputSerializer,
            403: _error("Not signed in, blocked, the other side is gone, or suspended."),
            404: NOT_FOUND,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        data = MessageInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        message = services.message_send(
            author=request.user, conversation_id=pk, body=data.validated_data["body"]
        )
        return Response(
            MessageOutputSerializer(
                {
                    "id": message.pk,
                    "author_is_viewer": True,
                    "author_name": _own_name(request),
                    "body": message.body,
                    "state": "visible",
                    "created_at": message.created_at,
                }
            ).data,
            status=status.HTTP_201_CREATED,
        )


class ConversationReadView(APIView):
    """Mark everything in one of your conversations read."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={204: OpenApiResponse(description="Read."), 403: FORBIDDEN, 404: NOT_FOUND},
    )
    def post(self, request: Request, pk: int) -> Response:
        services.conversation_mark_read(user=request.user, conversation_id=pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- blocks and reports ------------------------------------------------------------------------


class BlockCreateView(APIView):
    """Block the claimant of a record: silent, both directions; pending invitations between
    you are withdrawn."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=BlockInputSerializer,
        responses={
            204: OpenApiResponse(description="Blocked (also when already blocked)."),
            403: FORBIDDEN,
            404: _error("No researcher has this slug."),
        },
    )
    def post(self, request: Request) -> Response:
        data = BlockInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        researcher = _researcher_or_404(data.validated_data["researcher"])
        services.block_create(blocker=request.user, researcher=researcher)
        return Response(status=status.HTTP_204_NO_CONTENT)


class BlockDeleteView(APIView):
    """Lift your block of a record's claimant."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={
            204: OpenApiResponse(description="Not blocked (also when it was not)."),
            403: FORBIDDEN,
            404: _error("No researcher has this slug."),
        },
    )
    def delete(self, request: Request, slug: str) -> Response:
        services.block_delete(blocker=request.user, researcher=_researcher_or_404(slug))
        return Response(status=status.HTTP_204_NO_CONTENT)


class _ReportView(APIView):
    permission_classes = [IsAuthenticated]
    # "message" or "invitation": which id the URL's pk is, for report_create.
    item = ""

    @extend_schema(
        request=ReportInputSerializer,
        responses={
            201: ReportCreatedSerializer,
            403: _error("Not signed in, or not yours to report (your own)."),
            404: NOT_FOUND,
            409: _error("You already reported it."),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        data = ReportInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        report = services.report_create(
            reporter=request.user,
            reason=data.validated_data["reason"],
            **{f"{self.item}_id": pk},
        )
        return Response(
            ReportCreatedSerializer({"id": report.pk, "status": report.status}).data,
            status=status.HTTP_201_CREATED,
        )


class MessageReportView(_ReportView):
    """Report a message of the other participant to the moderators."""

    item = "message"


class InvitationReportView(_ReportView):
    """Report an invitation you received to the moderators."""

    item = "invitation"
