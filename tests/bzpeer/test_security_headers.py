"""Every response carries a Permissions-Policy that turns off the browser features no page
uses, and a Content-Security-Policy under which nothing inline runs or applies: the pages
keep every script and style in static files."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from allauth.account.models import EmailAddress

from bzpeer.security_headers import PERMISSIONS_POLICY
from tests.bzpeer.test_head_requests import make_records, our_html_urls
from tests.conftest import REPO_ROOT
from tests.factories import ResearcherFactory, UserFactory

pytestmark = pytest.mark.django_db

TURNED_OFF = ["camera", "microphone", "geolocation", "payment", "usb", "browsing-topics"]


def _policy(header: str) -> dict[str, str]:
    return dict(part.strip().split("=", 1) for part in header.split(","))


def test_it_turns_off_the_powerful_features():
    policy = _policy(PERMISSIONS_POLICY)
    for feature in TURNED_OFF:
        assert policy[feature] == "()", feature


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/search/?q=curie",
        "/explore/",
        "/accounts/login/",
        "/api/v1/researchers/",
        "/api/schema/",
        "/healthz",
        "/no-such-page/",
        "/static/css/site.css",
    ],
)
def test_it_sends_the_permissions_policy_on_every_kind_of_response(client, path):
    response = client.get(path)
    assert response["Permissions-Policy"] == PERMISSIONS_POLICY, path


def test_it_sends_it_on_a_profile_and_on_a_refused_method(client):
    researcher = ResearcherFactory()
    assert client.get(f"/researchers/{researcher.slug}/")["Permissions-Policy"]
    refused = client.post(f"/researchers/{researcher.slug}/")
    assert refused.status_code == 405
    assert refused["Permissions-Policy"] == PERMISSIONS_POLICY


def _directives(header: str) -> dict[str, list[str]]:
    directives = {}
    for part in header.split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


class InlineCode(HTMLParser):
    """Collects what a CSP without 'unsafe-inline' refuses: script elements with code in them,
    style elements, style attributes, on* handler attributes and javascript: URLs."""

    # Data blocks (json_script, JSON-LD) are not run, so the CSP lets them be.
    DATA_TYPES = {"application/json", "application/ld+json"}

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._inline_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "style":
            self.found.append("<style>")
        if tag == "script" and not attributes.get("src"):
            self._inline_script = attributes.get("type") not in self.DATA_TYPES
        for name, value in attrs:
            if name == "style":
                self.found.append(f"<{tag} style={value!r}>")
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}={value!r}>")
            if name in {"href", "src", "action"} and (value or "").startswith("javascript:"):
                self.found.append(f"<{tag} {name}={value!r}>")

    def handle_data(self, data: str) -> None:
        if self._inline_script and data.strip():
            self.found.append(f"<script>{data.strip()[:60]}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._inline_script = False


def _inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    return parser.found


def test_it_sends_a_content_security_policy_without_inline_code_or_outside_sources(client):
    header = client.get("/")["Content-Security-Policy"]
    directives = _directives(header)
    for name in ("default-src", "script-src", "style-src", "connect-src", "font-src"):
        assert directives[name] == ["'self'"], name
    assert directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["base-uri"] == ["'self'"]
    assert "unsafe" not in header
    assert "*" not in header


def test_forms_may_post_to_this_site_and_to_orcids_sign_in_only(client, settings):
    """default-src does not cover form-action (issue 28, item 3): without it a form injected
    into a page could post anywhere. ORCID's authorisation page is where signing in with ORCID
    is redirected after its form posts here."""
    directives = _directives(client.get("/")["Content-Security-Policy"])
    assert directives["form-action"] == ["'self'", f"https://{settings.ORCID_BASE_DOMAIN}"]


@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymous", "member"])
def test_every_page_of_ours_has_the_policy_and_nothing_inline(client, signed_in):
    records = make_records()
    if signed_in:
        user = UserFactory(email="member@example.org")
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        client.force_login(user)
    pages = [*our_html_urls(records), "/accounts/login/", "/accounts/signup/", "/no-such-page/"]
    checked = 0
    for url in pages:
        response = client.get(url)
        if response.status_code == 405 or not response["Content-Type"].startswith("text/html"):
            continue
        assert "script-src 'self'" in response["Content-Security-Policy"], url
        assert _inline_code(response.content.decode()) == [], url
        checked += 1
    assert checked >= 15


def test_no_template_holds_inline_script_or_style():
    # E-mails are not web pages: mail clients need their styles inline.
    templates = [
        path
        for path in (REPO_ROOT / "templates").rglob("*.html")
        if "email" not in path.relative_to(REPO_ROOT / "templates").parts
    ]
    assert len(templates) > 30
    offenders = {
        str(path.relative_to(REPO_ROOT)): found
        for path in templates
        if (found := _inline_code(path.read_text()))
    }
    assert offenders == {}


def test_the_swagger_ui_page_alone_goes_without_the_policy(client):
    # drf-spectacular writes it with an inline <style> and Swagger UI styles inline as it draws.
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert "Content-Security-Policy" not in docs
    assert "Content-Security-Policy" in client.get("/api/schema/")
