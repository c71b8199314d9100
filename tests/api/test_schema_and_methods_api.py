from __future__ import annotations

import re

import pytest

from tests.factories import ResearcherFactory, WorkFactory

pytestmark = pytest.mark.django_db

API_PATHS = {
    "/api/v1/researchers/",
    "/api/v1/researchers/{slug}/",
    "/api/v1/researchers/{slug}/works/",
    "/api/v1/works/",
    "/api/v1/works/{id}/",
}


def test_the_schema_is_an_openapi_document_naming_every_endpoint(client):
    response = client.get("/api/schema/", {"format": "json"})

    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert API_PATHS <= set(schema["paths"])
    # The records API is read-only: no operation other than GET on any of its paths (the
    # claims API, documented beside it, is where a signed-in user may POST).
    assert {method for path in API_PATHS for method in schema["paths"][path]} == {"get"}


def test_the_schema_documents_the_merged_record_redirect(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()

    detail = schema["paths"]["/api/v1/researchers/{slug}/"]["get"]
    assert "302" in detail["responses"]
    assert "merged" in detail["description"]


def test_the_schema_documents_the_merged_work_redirect(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()

    detail = schema["paths"]["/api/v1/works/{id}/"]["get"]
    redirect = detail["responses"]["301"]
    assert "merged" in detail["description"]
    assert redirect["headers"]["Location"]["schema"] == {"type": "string", "format": "uri"}
    body = redirect["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    properties = schema["components"]["schemas"][body]["properties"]
    assert properties["merged_into"]["type"] == "integer"
    assert set(properties) == {"detail", "merged_into", "location"}


def test_the_schema_lists_the_filters(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()

    def parameters(path: str) -> set[str]:
        return {parameter["name"] for parameter in schema["paths"][path]["get"]["parameters"]}

    assert {"search", "q", "openalex_id", "orcid", "page", "page_size"} <= parameters(
        "/api/v1/researchers/"
    )
    assert {"openalex_id", "doi", "arxiv_id", "page", "page_size"} <= parameters("/api/v1/works/")


def test_the_docs_page_loads_its_assets_locally(client):
    response = client.get("/api/docs/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in html
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui.css" in html
    # Any absolute http(s) URL would be a third-party host the page depends on.
    assert re.findall(r"https?://", html) == []


@pytest.fixture
def endpoints():
    ResearcherFactory(slug="someone")
    work = WorkFactory()
    return [
        "/api/v1/researchers/",
        "/api/v1/researchers/someone/",
        "/api/v1/researchers/someone/works/",
        "/api/v1/works/",
        f"/api/v1/works/{work.id}/",
    ]


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_every_endpoint_refuses_writes_with_a_405(client, endpoints, method):
    for url in endpoints:
        response = getattr(client, method)(url, data={}, content_type="application/json")

        assert response.status_code == 405, url
        assert "not allowed" in response.json()["detail"]


def test_a_browser_gets_the_browsable_api_with_the_filter_form(client, endpoints):
    for url in endpoints:
        response = client.get(url, HTTP_ACCEPT="text/html")

        assert response.status_code == 200, url
        assert response["Content-Type"].startswith("text/html"), url


def test_the_schema_is_built_once_and_then_served_as_built(client, monkeypatch):
    """Building the schema takes about 0.35 s of CPU; a web process builds it once."""
    from drf_spectacular.generators import SchemaGenerator

    from bzpeer.api_schema_view import SchemaView

    monkeypatch.setattr(SchemaView, "_built", {})
    builds = []
    build = SchemaGenerator.get_schema

    def counted(self, *args, **kwargs):
        builds.append(1)
        return build(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counted)

    first = client.get("/api/schema/", {"format": "json"})
    again = [client.get("/api/schema/", {"format": "json", "x": n}) for n in range(3)]
    as_yaml = client.get("/api/schema/")
    assert len(builds) == 1

    # A version or language of the visitor's choosing builds nothing: the site has one version
    # and one language, and each such request is answered with the schema already built.
    for hostile in ("x" * 50, "y" * 50):
        for parameter in ("version", "lang"):
            answer = client.get("/api/schema/", {"format": "json", parameter: hostile})
            assert answer.status_code == 200
            assert answer.json() == first.json()
    assert len(builds) == 1
    assert list(SchemaView._built) == [(None, "en")]
    assert all(response.json() == first.json() for response in again)
    assert as_yaml.status_code == 200 and b"openapi:" in as_yaml.content


def test_the_schema_is_rendered_once_per_format_and_served_the_same(client, monkeypatch):
    """YAML takes about 30 ms of CPU to write; a web process writes each format once. A media
    type with parameters of the visitor's choosing is written for that request and not kept."""
    from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiYamlRenderer

    from bzpeer.api_schema_view import SchemaView

    monkeypatch.setattr(SchemaView, "_rendered", {})
    renders = []
    for renderer in (OpenApiYamlRenderer, OpenApiJsonRenderer):
        render = renderer.render

        def counted(self, *args, _render=render, **kwargs):
            renders.append(type(self).__name__)
            return _render(self, *args, **kwargs)

        monkeypatch.setattr(renderer, "render", counted)

    as_yaml = [client.get("/api/schema/") for _ in range(3)]
    as_json = [client.get("/api/schema/", {"format": "json"}) for _ in range(3)]
    assert renders == ["OpenApiYamlRenderer", "OpenApiJsonRenderer"]
    for answers in (as_yaml, as_json):
        assert all(a.status_code == 200 for a in answers)
        assert len({(a.content, a["Content-Type"], a["Content-Disposition"]) for a in answers}) == 1
    assert as_yaml[0]["Content-Type"] == "application/vnd.oai.openapi; charset=utf-8"
    assert as_json[0]["Content-Type"] == "application/vnd.oai.openapi+json"
    assert b"openapi:" in as_yaml[0].content and as_json[0].json()["openapi"]

    indented = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json; indent=1")
    assert indented.status_code == 200 and indented.json() == as_json[0].json()
    assert renders[2:] == ["OpenApiJsonRenderer"]
    assert len(SchemaView._rendered) == 2
