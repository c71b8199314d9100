"""REST API of the feed (/api/v1/feed/) and of follows (/api/v1/follows/...).

One view per resource; the views call feed.selectors and feed.services. Session
authentication with CSRF on every change, as the rest of the API; a visitor gets 403.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bzpeer.api import ErrorSerializer
from publications.models import Topic
from researchers import selectors as researcher_selectors
from researchers.models import Follow, Institution, Researcher

from . import selectors, services
from .models import InstitutionFollow, TopicFollow

# --- The feed --------------------------------------------------------------------------------


class BecauseResearcherSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class BecauseTopicSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class BecauseSerializer(serializers.Serializer):
    researchers = BecauseResearcherSerializer(many=True, source="because_researchers")
    topics = BecauseTopicSerializer(many=True, source="because_topics")
    institutions = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Always empty: followed institutions do not feed the feed (see the README).",
        default=list,
    )


class FeedAuthorSerializer(serializers.Serializer):
    slug = serializers.CharField(allow_null=True)
    name = serializers.CharField(allow_null=True)
    raw_name = serializers.CharField()


class FeedTopicSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    code = serializers.CharField(allow_blank=True)


class FeedItemSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    url = serializers.SerializerMethodField()
    title = serializers.CharField()
    type = serializers.CharField()
    publication_year = serializers.IntegerField(allow_null=True)
    publication_date = serializers.DateField(allow_null=True)
    doi = serializers.CharField(allow_null=True)
    arxiv_id = serializers.CharField(allow_null=True)
    code_url = serializers.CharField(allow_blank=True)
    cited_by_count = serializers.IntegerField()
    authors_count = serializers.IntegerField()
    source = serializers.CharField(source="source_short_name", allow_null=True)
    authors = FeedAuthorSerializer(
        many=True, source="listed_authors", help_text="The start of the byline, in order."
    )
    topics = FeedTopicSerializer(many=True, source="listed_topics")
    arrived_at = serializers.DateTimeField(help_text="When the work reached bzpeer.")
    is_new = serializers.BooleanField(help_text="Arrived after your last 'mark all read'.")
    because = BecauseSerializer(source="*", help_text="What you follow that put it here.")

    def get_url(self, item: selectors.FeedItem) -> str:
        request = self.context["request"]
        return request.build_absolute_uri(reverse("api:work-detail", args=[item.pk]))


class FeedPageSerializer(serializers.Serializer):
    next = serializers.CharField(allow_null=True, help_text="The next (older) page, or null.")
    results = FeedItemSerializer(many=True)


class FeedView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Your feed",
        description="The newest works of the researchers and topics you follow (muted ones "
        "left out), newest arrival first, each once with `because`. Keyset paging: follow "
        "`next`; works that arrive meanwhile never repeat or shift a later page.",
        parameters=[
            OpenApiParameter("cursor", str, description="Opaque; from `next` of the previous page.")
        ],
        responses={
            200: FeedPageSerializer,
            400: OpenApiResponse(ErrorSerializer, description="The cursor is not valid."),
            403: OpenApiResponse(ErrorSerializer, description="Not signed in."),
        },
    )
    def get(self, request: Request) -> Response:
        cursor = request.query_params.get("cursor") or None
        try:
            page = selectors.feed_page(request.user, cursor=cursor)  # type: ignore[arg-type]
        except selectors.InvalidCursor as error:
            raise ValidationError({"detail": str(error)}) from error
        next_url = None
        if page.next_cursor:
            next_url = request.build_absolute_uri(
                f"{reverse('api:feed')}?{_query(cursor=page.next_cursor)}"
            )
        items = FeedItemSerializer(page.items, many=True, context={"request": request}).data
        return Response({"next": next_url, "results": items})


def _query(**values: str) -> str:
    return urlencode(values)


# --- Follows ---------------------------------------------------------------------------------


class FollowStateSerializer(serializers.Serializer):
    following = serializers.BooleanField()
    muted = serializers.BooleanField(help_text="Left out of your feed (researchers and topics).")
    followers_count = serializers.IntegerField()


class FollowMuteInputSerializer(serializers.Serializer):
    muted = serializers.BooleanField()


_FOLLOW_RESPONSES: dict[int, Any] = {
    403: OpenApiResponse(ErrorSerializer, description="Not signed in, or no CSRF token."),
    404: OpenApiResponse(ErrorSerializer, description="No such record."),
}


class _FollowView(APIView):
    """GET your follow of the record; POST follows it (201, or 200 when you already did);
    DELETE unfollows (204 either way); PATCH {"muted": bool} mutes it in your feed (404 when
    you do not follow it)."""

    permission_classes = [IsAuthenticated]
    mutable = True

    def target(self, key: Any) -> Researcher | Topic | Institution:
        raise NotImplementedError

    def follow_row(self, target: Any) -> Follow | TopicFollow | InstitutionFollow | None:
        raise NotImplementedError

    def state(self, target: Any) -> dict[str, Any]:
        target.refresh_from_db(fields=["followers_count"])
        row = self.follow_row(target)
        return {
            "following": row is not None,
            "muted": bool(getattr(row, "muted", False)),
            "followers_count": target.followers_count,
        }

    def get(self, request: Request, key: Any) -> Response:
        return Response(self.state(self.target(key)))

    def post(self, request: Request, key: Any) -> Response:
        target = self.target(key)
        created = services.follow_create(user=request.user, target=target)  # type: ignore[arg-type]
        return Response(
            self.state(target), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )

    def delete(self, request: Request, key: Any) -> Response:
        services.follow_delete(user=request.user, target=self.target(key))  # type: ignore[arg-type]
        return Response(status=status.HTTP_204_NO_CONTENT)

    def patch(self, request: Request, key: Any) -> Response:
        target = self.target(key)
        data = FollowMuteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if not services.follow_mute_set(
            user=request.user,  # type: ignore[arg-type]
            target=target,  # type: ignore[arg-type]
            muted=data.validated_data["muted"],
        ):
            raise NotFound("You do not follow this.")
        return Response(self.state(target))


def _follow_schema(noun: str, key: str, *, mutable: bool = True) -> Any:
    def decorate(view: type[_FollowView]) -> type[_FollowView]:
        view.get = extend_schema(  # type: ignore[method-assign]
            summary=f"Your follow of a {noun}",
            responses={200: FollowStateSerializer, **_FOLLOW_RESPONSES},
        )(view.get)
        view.post = extend_schema(  # type: ignore[method-assign]
            summary=f"Follow a {noun}",
            request=None,
            responses={
                200: OpenApiResponse(FollowStateSerializer, description="Already followed."),
                201: OpenApiResponse(FollowStateSerializer, description="Followed."),
                **_FOLLOW_RESPONSES,
            },
        )(view.post)
        view.delete = extend_schema(  # type: ignore[method-assign]
            summary=f"Unfollow a {noun}",
            request=None,
            responses={
                204: OpenApiResponse(description="Not followed (any more)."),
                **_FOLLOW_RESPONSES,
            },
        )(view.delete)
        if mutable:
            view.patch = extend_schema(  # type: ignore[method-assign]
                summary=f"Mute or unmute a followed {noun} in your feed",
                request=FollowMuteInputSerializer,
                responses={
                    200: FollowStateSerializer,
                    403: _FOLLOW_RESPONSES[403],
                    404: OpenApiResponse(
                        ErrorSerializer, description="No such record, or you do not follow it."
                    ),
                },
            )(view.patch)
        return view

    return decorate


@_follow_schema("researcher", "slug")
class ResearcherFollowView(_FollowView):
    def target(self, key: Any) -> Researcher:
        researcher = researcher_selectors.researchers_public().filter(slug=key).first()
        if researcher is None:
            raise NotFound("No researcher has this slug.")
        return researcher

    def follow_row(self, target: Any) -> Follow | None:
        return Follow.objects.filter(user=self.request.user, researcher=target).first()


@_follow_schema("topic", "id")
class TopicFollowView(_FollowView):
    def target(self, key: Any) -> Topic:
        topic = Topic.objects.filter(pk=key).first()
        if topic is None:
            raise NotFound("No topic has this id.")
        return topic

    def follow_row(self, target: Any) -> TopicFollow | None:
        return TopicFollow.objects.filter(user=self.request.user, topic=target).first()


@_follow_schema("institution", "id", mutable=False)
class InstitutionFollowView(_FollowView):
    http_method_names = ["get", "post", "delete", "head", "options"]

    def target(self, key: Any) -> Institution:
        institution = Institution.objects.filter(pk=key).first()
        if institution is None:
            raise NotFound("No institution has this id.")
        return institution

    def follow_row(self, target: Any) -> InstitutionFollow | None:
        return InstitutionFollow.objects.filter(user=self.request.user, institution=target).first()
