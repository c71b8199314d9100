"""The view that serves the OpenAPI schema (kept apart from bzpeer.api_schema, which DRF's
settings load while drf-spectacular's views are still being imported)."""

from __future__ import annotations

from typing import Any, ClassVar

from django.utils import translation
from drf_spectacular.views import SpectacularAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings


class SchemaView(SpectacularAPIView):
    """GET /api/schema/: the API's OpenAPI schema, built once per process for each version and
    language instead of once per request.

    The schema depends on the code alone (it is the public one, and names no server taken from
    the request). Building it costs about 0.35 s of CPU, so a handful of anonymous clients
    asking for it could keep every web process busy.
    """

    _built: ClassVar[dict[tuple[str | None, str], dict[str, Any]]] = {}

    def _get_schema_response(self, request: Request) -> Response:
        if not self.serve_public:  # a schema of what the signed-in user may do
            return super()._get_schema_response(request)
        version = self.api_version or request.version or self._get_version_parameter(request)
        key = self._cache_key(version)
        schema = self._built.get(key) if key else None
        if schema is None:
            generator = self.generator_class(
                urlconf=self.urlconf, api_version=version, patterns=self.patterns
            )
            schema = generator.get_schema(request=request, public=True)
            if key:
                self._built[key] = schema
        filename = self._get_filename(request, version)
        return Response(
            data=schema, headers={"Content-Disposition": f'inline; filename="{filename}"'}
        )

    @staticmethod
    def _cache_key(version: str | None) -> tuple[str | None, str] | None:
        """The versions and languages the site has; a ?version= or ?lang= of the visitor's
        choosing is built for its request and not kept (None), so the cache stays small."""
        if version is not None and version not in (api_settings.ALLOWED_VERSIONS or ()):
            return None
        try:
            return version, translation.get_supported_language_variant(translation.get_language())
        except LookupError:
            return None
