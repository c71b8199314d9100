"""The OpenAPI schema of the REST API says what the API answers, errors included.

REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"] names ApiAutoSchema, so every API view, of every app,
present and future, gets from here what drf-spectacular leaves out:

- The error answers a view can give without declaring them, each with its body: 400 where the
  operation reads query parameters or a body (`ValidationError`: `detail`, or each invalid field
  mapped to its messages), 403 where a permission applies or the method changes something (a
  signed-in session's CSRF check), 404 where the path names a record or the list is paged (a
  page that does not exist), 415 where there is a body, and 429 everywhere (the throttle, and
  the per-action limits). A view that declares one of these keeps its own; a declared error
  without a body gets the `Error` body, which is what DRF and bzpeer.errors answer.
- A read-only choice field on a model field that may be blank: DRF drops `allow_blank` from
  read-only fields, so drf-spectacular would leave "" out of the enum although the answers carry
  it (a claim that is not approved has `approved_via: ""`).

tests/api/test_openapi_schemathesis.py checks the schema against the answers, operation by
operation, anonymous and signed in.
"""

from __future__ import annotations

import copy
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.settings import api_settings

from .api import ErrorSerializer

UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}

# DRF's ValidationError body: {"field": ["message", ...], ...}, nested objects for nested fields
# and list items ({"evidence_links": {"0": ["Enter a valid URL."]}}), and the whole-input errors
# under non_field_errors. A service refusal answered 400 is {"detail": "message"} instead.
VALIDATION_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": (
        "Either `detail`, a message about the request as a whole, or each invalid field "
        f"(`{api_settings.NON_FIELD_ERRORS_KEY}` for the input as a whole) mapped to its "
        "messages; a nested field or a list item maps to an object of its own."
    ),
    "properties": {"detail": {"type": "string"}},
    "additionalProperties": {
        "oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "object"}]
    },
}

ERROR_DESCRIPTIONS = {
    "400": "The query parameters or the body are invalid; the body says which and why.",
    "403": "Not signed in, not allowed, or (when a signed-in session changes something) the "
    "CSRF token is missing or wrong.",
    "404": "No such record, or no such page of the list.",
    "415": "The body is in a media type the API does not read (send application/json).",
    "429": "Too many requests; the Retry-After header says in how many seconds to try again.",
}


class ApiAutoSchema(AutoSchema):
    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        responses: dict[str, Any] = operation["responses"]
        for status_code in self._undeclared_error_codes(operation):
            responses.setdefault(status_code, {"description": ERROR_DESCRIPTIONS[status_code]})
        for status_code, response in responses.items():
            if status_code >= "400" and "content" not in response:
                response.update(
                    content=self._get_response_for_code(self._error_body(status_code), status_code)[
                        "content"
                    ]
                )
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def _undeclared_error_codes(self, operation: dict[str, Any]) -> list[str]:
        locations = {parameter["in"] for parameter in operation.get("parameters", [])}
        has_body = "requestBody" in operation
        codes = ["429"]
        if "query" in locations or has_body:
            codes.append("400")
        if has_body:
            codes.append("415")
        if self.method in UNSAFE_METHODS or any(
            not isinstance(permission, AllowAny) for permission in self.view.get_permissions()
        ):
            codes.append("403")
        if "path" in locations or (self._is_list_view() and self._get_paginator() is not None):
            codes.append("404")
        return codes

    def _error_body(self, status_code: str) -> Any:
        if status_code != "400":
            return ErrorSerializer
        component = ResolvedComponent(
            name="ValidationError",
            type=ResolvedComponent.SCHEMA,
            schema=VALIDATION_ERROR_SCHEMA,
            object="ValidationError",
        )
        self.registry.register_on_missing(component)
        return component.ref

    def _map_serializer_field(
        self, field: serializers.Field, direction: str, bypass_extensions: bool = False
    ) -> dict[str, Any]:
        if _read_only_choice_that_may_be_blank(field):
            field = copy.copy(field)
            field.allow_blank = True  # type: ignore[attr-defined]
        return super()._map_serializer_field(field, direction, bypass_extensions)


def _read_only_choice_that_may_be_blank(field: serializers.Field) -> bool:
    """A read-only ChoiceField of a ModelSerializer whose text model field allows blank."""
    if not (isinstance(field, serializers.ChoiceField) and field.read_only):
        return False
    if field.allow_blank or not isinstance(field.parent, serializers.ModelSerializer):
        return False
    try:
        model_field = field.parent.Meta.model._meta.get_field(field.source)
    except (AttributeError, FieldDoesNotExist):
        return False
    return isinstance(model_field, models.CharField | models.TextField) and model_field.blank
