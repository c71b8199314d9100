"""The view that serves the OpenAPI schema (kept apart from bzpeer.api_schema, which DRF's
settings load while drf-spectacular's views are still being imported)."""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.utils import translation
from drf_spectacular.views import SpectacularAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings


class _SchemaResponse(Response):
    """The public schema, rendered once per renderer: YAML takes about 30 ms of CPU for a
    schema that only changes with the code. A media type with parameters (`; indent=2`, any
    the visitor writes) is rendered each time, so what is kept stays one entry per renderer."""

    def __init__(self, data: dict[str, Any], *, key: tuple[Any, ...], **kwargs: Any) -> None:
        super().__init__(data=data, **kwargs)
        self.key = key

    @property
    def rendered_content(self) -> Any:
        renderer = self.accepted_renderer
        if self.accepted_media_type != renderer.media_type:
            return super().rendered_content
        key = (*self.key, type(renderer))
        kept = SchemaView._rendered.get(key)
        if kept is None:
            content = super().rendered_content
            kept = SchemaView._rendered[key] = (content, self["Content-Type"])
        self["Content-Type"] = kept[1]
        return kept[0]


class SchemaView(SpectacularAPIView):
    """GET /api/schema/: the API's OpenAPI schema, built once per process for each version and
    language instead of once per request, and rendered once per format.

    The schema depends on the code alone (it is the public one, and names no server taken from
    the request). Building it costs about 0.35 s of CPU, so a handful of anonymous clients
    asking for it could keep every web process busy.
    """

    _built: ClassVar[dict[tuple[str | None, str], dict[str, Any]]] = {}
    # Each built schema as each renderer wrote it (_SchemaResponse): body and content type.
    _rendered: ClassVar[dict[tuple[Any, ...], tuple[bytes, str]]] = {}

    def _get_schema_response(self, request: Request) -> Response:
        if not self.serve_public:  # a schema of what the signed-in user may do
            return super()._get_schema_response(request)
        version = self._site_version(
            self.api_version or request.version or self._get_version_parameter(request)
        )
        key = (version, self._site_language())
        schema = self._built.get(key)
        if schema is None:
            generator = self.generator_class(
                urlconf=self.urlconf, api_version=version, patterns=self.patterns
            )
            schema = self._built[key] = generator.get_schema(request=request, public=True)
            self._rendered.clear()  # renderings of a schema built before
        filename = self._get_filename(request, version)
        return _SchemaResponse(
            schema, key=key, headers={"Content-Disposition": f'inline; filename="{filename}"'}
        )

    @staticmethod
    def _site_version(version: str | None) -> str | None:
        """One of the site's versions, or None (the schema of the version the site serves): a
        ?version= of the visitor's choosing must not make a process build a schema for it,
        which at 0.35 s of CPU a request would let a few clients keep every process busy."""
        return version if version in (api_settings.ALLOWED_VERSIONS or ()) else None

    @staticmethod
    def _site_language() -> str:
        """The language the schema is written in: a ?lang= the site has (drf-spectacular
        activates it), else the site's own, which is what Django translates an unknown one
        into anyway. So the cache holds at most one schema per version and language."""
        try:
            return translation.get_supported_language_variant(translation.get_language())
        except LookupError:
            return translation.get_supported_language_variant(settings.LANGUAGE_CODE)
