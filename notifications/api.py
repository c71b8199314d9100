"""REST API of the signed-in user's email choices (/api/v1/account/notifications/).

One field per notification category, whose value is a delivery (kinds.Delivery). The
serializers are built from kinds.DELIVERIES_BY_CATEGORY, so a new category (issue 14's digest)
appears here with its own choices and nothing else to change. Input and output are separate;
the rule (which delivery a category offers) is the service's, so the view only passes on what
the client sent. Session authentication and CSRF as the rest of the API.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from . import selectors, services
from .kinds import DELIVERIES_BY_CATEGORY, Delivery, NotificationCategory


class DeliveryChoiceField(serializers.ChoiceField):
    """A category's delivery, one of the values that category offers."""


# What a notification category offers; a category with other choices gets its own component.
_NOTIFICATION_DELIVERIES = [Delivery.IMMEDIATELY, Delivery.DAILY, Delivery.OFF]


class DeliveryChoiceFieldExtension(OpenApiSerializerFieldExtension):
    """A category's deliveries as a named schema component: "Delivery" for the usual three,
    "<Category>Delivery" for a category with choices of its own. Left to drf-spectacular, the
    categories sharing one choice set would each name it after themselves (warning W001)."""

    target_class = DeliveryChoiceField

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        choices = list(self.target.choices)
        usual = choices == _NOTIFICATION_DELIVERIES
        name = "Delivery" if usual else f"{self.target.field_name.title()}Delivery"
        component = ResolvedComponent(
            name=name,
            type=ResolvedComponent.SCHEMA,
            object=name,
            schema={"type": "string", "enum": choices},
        )
        auto_schema.registry.register_on_missing(component)
        return component.ref


def _delivery_fields(*, required: bool) -> dict[str, serializers.Field]:
    return {
        category: DeliveryChoiceField(
            choices=list(DELIVERIES_BY_CATEGORY[category]),
            required=required,
            help_text=f"{label}: when its emails reach you.",
        )
        for category, label in NotificationCategory.choices
    }


class NotificationPreferencesOutputSerializer(serializers.Serializer):
    """Every category with your delivery for it (the default when you never chose)."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return _delivery_fields(required=True)


class NotificationPreferencesInputSerializer(serializers.Serializer):
    """The categories to change; the others stay as they are. Unknown fields are refused."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return _delivery_fields(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if isinstance(self.initial_data, dict):
            unknown = sorted(set(self.initial_data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    f"Not a notification category: {', '.join(name[:40] for name in unknown[:5])}."
                )
        return attrs


class NotificationPreferencesView(APIView):
    """GET: your delivery for each notification category. PATCH: change some of them."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=NotificationPreferencesOutputSerializer)
    def get(self, request: Request) -> Response:
        return Response(
            NotificationPreferencesOutputSerializer(selectors.deliveries_for(request.user)).data
        )

    @extend_schema(
        request=NotificationPreferencesInputSerializer,
        responses={
            200: NotificationPreferencesOutputSerializer,
            400: OpenApiResponse(
                description="A category that does not exist or a delivery it does not offer."
            ),
        },
    )
    def patch(self, request: Request) -> Response:
        data = NotificationPreferencesInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.notification_preferences_set(user=request.user, deliveries=data.validated_data)
        return Response(
            NotificationPreferencesOutputSerializer(selectors.deliveries_for(request.user)).data
        )
