"""The hostile sweep's parts (tests/bzpeer/test_hostile_requests.py): the hostile values for
query strings, forms, paths, headers and bodies; a small demo-like site (the `site` fixture);
the walk over every URL pattern of the root URLconf with real objects for its parameters; and
a visitor that records every 5xx it gets. tests/bzpeer/test_private_answers.py walks the same.
"""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any
from unittest import mock
from urllib.parse import quote

import pytest
from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.http import HttpResponse, QueryDict
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils.crypto import get_random_string
from django.utils.datastructures import MultiValueDict
from drf_spectacular.generators import SchemaGenerator

from claims.models import Claim
from pages.sitemaps import SITEMAPS
from tests.factories import (
    AffiliationFactory,
    AuthorshipFactory,
    InstitutionFactory,
    ResearcherFactory,
    TopicFactory,
    WorkFactory,
    WorkTopicFactory,
)
from tests.support.people import approved_claimant, make_member, submit

# Query-string and form values, already percent-encoded as they travel.
HOSTILE_VALUES = [
    "a%00b",  # NUL
    "%ff%c3%28%ed%a0%80",  # a byte that is never UTF-8, a broken sequence, an encoded surrogate
    "99999999999999999999",  # past bigint
    "9" * 5_000,  # past what Python's int() reads from text (4,300 digits)
    "-44",
    "1e400",
    "abc",
    quote("a & | ! <-> :* b"),  # tsquery operators
    quote("((a) | !(b \"'\\"),  # unbalanced parentheses, quotes, a backslash
    "x" * 10_000,
    "",
]
# The same key twice, PHP-style list syntax and a bare key, where one value is expected.
REPEATED_KEY_QUERIES = ["{key}=1&{key}=2", "{key}[]=1&{key}[]=2", "{key}"]
# Raw values for a path parameter (a slug or an id), percent-encoded.
HOSTILE_PATH_VALUES = [
    "%00",
    "%ff",
    "99999999999999999999",
    "-1",
    quote("a & b:* | !c", safe=""),
    "x" * 4_000,  # a long request line, under what servers accept (gunicorn: 4094)
    "..%2f..%2fetc%2fpasswd",
]


def basic_credentials(credentials: bytes) -> str:
    return "Basic " + base64.b64encode(credentials).decode()


# Header name as Django's test client takes it (a WSGI environ key), and its value. Values
# without a NUL are grouped, since nothing refuses a whole request for one of them.
HOSTILE_HEADERS: list[dict[str, str]] = [
    {"HTTP_AUTHORIZATION": basic_credentials(b"alice\x00@example.org:password")},
    {"HTTP_AUTHORIZATION": "Basic \x00"},
    {"HTTP_COOKIE": "sessionid=\x00; csrftoken=\x00"},
    {"HTTP_X_FORWARDED_FOR": "1.2.3.4, \x00"},
    {
        "HTTP_AUTHORIZATION": basic_credentials(b"\xff\xfe:\xff"),
        "HTTP_ACCEPT": "application/json; version=\xff",
        "HTTP_X_FORWARDED_FOR": "\xff",
    },
    {
        "HTTP_AUTHORIZATION": "Token " + "x" * 10_000,
        "HTTP_COOKIE": "sessionid=" + "a" * 10_000 + "; messages=%ff%00",
        "HTTP_X_FORWARDED_FOR": "999.999.999.999, " + "a" * 5_000,
    },
    {
        "HTTP_ACCEPT": "text/html",
        "HTTP_ACCEPT_LANGUAGE": "\xff" * 100,
        "HTTP_USER_AGENT": "\xff",
        "HTTP_REFERER": "https://\xff/",
    },
    {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "works", "HTTP_HX_CURRENT_URL": "\xff"},
    {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "\xff" * 100, "HTTP_ACCEPT": "text/html"},
]
# JSON values for each property of an API request body.
HOSTILE_JSON_VALUES: list[Any] = [
    "\u0000",
    "a\u0000b",
    "\ud800",  # a lone surrogate: valid JSON escape, no UTF-8 encoding
    "x" * 10_000,
    "a & | ! <-> :*",
    10**30,
    -44,
    1.5,
    None,
    True,
    [],
    {},
    ["\u0000", 10**30],
    {"a": "\u0000"},
]
# Whole request bodies with their content type.
HOSTILE_BODIES: list[tuple[str, bytes]] = [
    ("application/x-www-form-urlencoded", b"csrfmiddlewaretoken=%00"),
    ("application/x-www-form-urlencoded", b"csrfmiddlewaretoken=" + b"x" * 10_000),
    ("application/x-www-form-urlencoded", b"csrfmiddlewaretoken=%ff&csrfmiddlewaretoken=1"),
    ("application/json", b"{"),
    ("application/json", b"\x00"),
    ("application/json", b"\xff\xfe\xfd"),
    ("application/json", b'"\\u0000"'),
    ("application/json", b"[]"),
    ("application/json", b"1e999"),
    ("application/json", b"[" * 100_000),
    ("application/json", b'{"a": 1, "a": 2}'),
    ("application/json; charset=klingon", b"{}"),
    ("application/x-www-form-urlencoded; charset=utf-16", b"a=1&b=%ff"),
    ("application/x-www-form-urlencoded", b"a=1&" * 2_000),
    ("multipart/form-data", b"--x\r\n"),
    ("multipart/form-data; boundary=x", b"--x\r\nContent-Disposition: form-data\r\n\r\n\x00"),
    ("text/plain", b"\x00\xff"),
]

# The member holds an approved record (profile editing); the newcomer holds nothing, so the
# claim form is open to them.
VISITORS = ["anonymous", "member", "newcomer"]
SEARCH_TABS = ["researchers", "works", "topics", "institutions"]


# --- the demo-like site ---------------------------------------------------------------------


@dataclass
class Site:
    member: Any
    newcomer: Any
    researcher: Any
    work: Any
    topic: Any
    institution: Any
    claim: Claim
    coauthor: Any


@pytest.fixture
def site(db, settings) -> Site:
    """A small site: the member is the approved claimant of a researcher with a work, a topic,
    an institution and a coauthor, and has a pending claim on that coauthor. ORCID sign-in is
    configured as in production."""
    settings.SOCIALACCOUNT_PROVIDERS = {
        "orcid": {
            "BASE_DOMAIN": "orcid.org",
            "MEMBER_API": False,
            "APPS": [{"client_id": "APP-TESTCLIENT0000", "secret": "test-secret"}],
        }
    }
    member = make_member("alice@example.org", display_name="Alice Liddell")
    institution = InstitutionFactory(name="Wonderland University")
    researcher = ResearcherFactory(
        display_name="Alice Liddell", slug="alice-liddell", last_known_institution=institution
    )
    coauthor = ResearcherFactory(display_name="Charles Dodgson", slug="charles-dodgson")
    AffiliationFactory(researcher=researcher, institution=institution)
    topic = TopicFactory(name="Looking-glass optics")
    work = WorkFactory(title="Through the looking-glass")
    AuthorshipFactory(work=work, researcher=researcher, position=1)
    AuthorshipFactory(work=work, researcher=coauthor, position=2)
    WorkTopicFactory(work=work, topic=topic)
    # In this order: holding an approved record, the member could open no other claim.
    claim = submit(member, coauthor)
    approved_claimant(member, researcher)
    newcomer = make_member("newcomer@example.org", display_name="New Comer")
    return Site(member, newcomer, researcher, work, topic, institution, claim, coauthor)


# --- walking the URL patterns ---------------------------------------------------------------


@dataclass
class Route:
    """One URL pattern: its path with `{name}` where a parameter goes, and each parameter's
    harmless default (the first alternative of a regex group, else empty)."""

    template: str
    parameters: dict[str, str] = field(default_factory=dict)

    def path(self, values: dict[str, str]) -> str:
        return "/" + self.template.format(**{**self.parameters, **values})


_CONVERTER = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>")


def _regex_template(regex: str) -> tuple[str, dict[str, str]]:
    """A regex pattern as a template: named groups become `{name}`, escapes their character."""
    regex = regex.removeprefix("^").removesuffix(r"\Z").removesuffix("$")
    template, parameters, index = "", {}, 0
    while index < len(regex):
        if regex.startswith("(?P<", index):
            name_end = regex.index(">", index)
            name = regex[index + 4 : name_end]
            depth, end = 1, name_end + 1
            while depth:
                depth += {"(": 1, ")": -1}.get(regex[end], 0)
                end += 1
            group = regex[name_end + 1 : end - 1]
            first = group.split("|")[0]
            parameters[name] = first if re.fullmatch(r"[\w-]+", first) else ""
            template += "{" + name + "}"
            index = end
        elif regex[index] == "\\":
            template += regex[index + 1]
            index += 2
        else:
            template += regex[index]
            index += 1
    assert not re.search(r"[()\[\]*+?|^$]", template), f"unsupported URL regex: {regex}"
    return template, parameters


def _routes(resolver: URLResolver, prefix: Route) -> Iterator[Route]:
    for entry in resolver.url_patterns:
        pattern = entry.pattern
        if hasattr(pattern, "_route"):
            template = _CONVERTER.sub(lambda m: "{" + m["name"] + "}", str(pattern._route))
            parameters = {m["name"]: "" for m in _CONVERTER.finditer(str(pattern._route))}
        else:
            template, parameters = _regex_template(pattern.regex.pattern)
        route = Route(prefix.template + template, {**prefix.parameters, **parameters})
        if isinstance(entry, URLResolver):
            yield from _routes(entry, route)
        else:
            assert isinstance(entry, URLPattern)
            yield route


def _harmless_values(site: Site, route: Route) -> dict[str, str]:
    """Real objects for the parameters: an id after "works/" is the work's, and so on."""
    ids_after = {
        "works/": site.work.pk,
        "topics/": site.topic.pk,
        "institutions/": site.institution.pk,
        "claims/": site.claim.pk,
    }
    values = {}
    for name, default in route.parameters.items():
        if name == "slug" and route.template.endswith("/claim/"):
            values[name] = site.coauthor.slug  # no approved claimant: it can be claimed
        elif name == "slug":
            values[name] = site.researcher.slug
        elif name == "work_id":
            values[name] = str(site.work.pk)
        elif name == "section":
            values[name] = next(iter(SITEMAPS))
        elif name == "pk":
            before = route.template.split("{pk}")[0]
            # An id of a kind this sweep builds no object for (a newer app's) is "1": the
            # hostile values still reach the view, which answers a missing object with a 404.
            values[name] = str(next((i for p, i in ids_after.items() if before.endswith(p)), "1"))
        elif name in ("object_id", "content_type_id", "id"):
            values[name] = "1"
        else:
            values[name] = default or "abc"
    return values


def all_paths(site: Site) -> list[tuple[Route, dict[str, str]]]:
    routes = list(_routes(get_resolver(), Route("")))
    return [(route, _harmless_values(site, route)) for route in routes]


# The longest sweeps (thousands of requests for one kind of visitor) are split into parts over
# the URL patterns, every pattern in exactly one part, so the processes of a parallel run share
# them instead of one process waiting minutes for a single test.
SWEEP_PARTS = 6


def paths_of_part(site: Site, part: int) -> list[tuple[Route, dict[str, str]]]:
    return all_paths(site)[part::SWEEP_PARTS]


# --- requests -------------------------------------------------------------------------------


# Read by the CSRF middleware on every POST, not by a view: the body test sweeps it once.
_NOT_A_VIEW_PARAMETER = {"csrfmiddlewaretoken", "sweep"}


@contextmanager
def parameters_read() -> Iterator[set[str]]:
    """The keys a QueryDict (request.GET, request.POST) is asked for while inside. Only
    QueryDicts: the URL resolver keeps its reverse lookups in plain MultiValueDicts."""
    keys: set[str] = set()

    def recording(name: str) -> Callable[..., Any]:
        original = getattr(MultiValueDict, name)

        def read(self: QueryDict, key: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(key, str) and key not in _NOT_A_VIEW_PARAMETER:
                keys.add(key)
            return original(self, key, *args, **kwargs)

        return read

    def contains(self: QueryDict, key: object) -> bool:
        if isinstance(key, str) and key not in _NOT_A_VIEW_PARAMETER:
            keys.add(key)
        return dict.__contains__(self, key)

    with (
        mock.patch.object(QueryDict, "__getitem__", recording("__getitem__")),
        mock.patch.object(QueryDict, "get", recording("get")),
        mock.patch.object(QueryDict, "getlist", recording("getlist")),
        mock.patch.object(QueryDict, "__contains__", contains),
    ):
        yield keys


def _session_store() -> SessionBase:
    return import_module(settings.SESSION_ENGINE).SessionStore()


class Visitor:
    """A client for one kind of visitor that notes every 5xx it gets, and signs the member in
    again when a request (a logout, say) signed them out."""

    def __init__(self, site: Site, kind: str) -> None:
        self.site = site
        self.kind = kind
        self.client = Client(enforce_csrf_checks=True, raise_request_exception=False)
        self.csrf_token = get_random_string(32)
        self.server_errors: list[str] = []
        self.requests = 0
        # The session the visitor last held, to send again when only the cookie was lost.
        self.session_key = ""
        # Whether the last request sent a Cookie header of its own instead of the visitor's.
        self.session_hidden = False

    def _prepare(self) -> None:
        self.client.cookies["csrftoken"] = self.csrf_token
        if self.kind == "anonymous":
            return
        if self._signed_in():
            self.session_key = self.client.cookies[settings.SESSION_COOKIE_NAME].value
            return
        # A hostile Cookie header hides the session from the server, whose answer then deletes
        # the cookie, and the session itself is left as it was: its cookie is sent again instead
        # of a new sign-in (a session written and last_login updated, a fifth of the member's
        # header sweep), and without asking the cache whether the session exists: the server
        # never knew which session it was (a fifth of the cache reads of that sweep). Any other
        # request may have ended the session (a logout): its cookie is sent again if the
        # session still exists (one cache read), else the visitor signs in again.
        if self.session_key and (self.session_hidden or _session_store().exists(self.session_key)):
            self.client.cookies[settings.SESSION_COOKIE_NAME] = self.session_key
        else:
            self.client.force_login(getattr(self.site, self.kind))
            self.session_key = self.client.cookies[settings.SESSION_COOKIE_NAME].value

    def _signed_in(self) -> bool:
        cookie = self.client.cookies.get(settings.SESSION_COOKIE_NAME)
        return cookie is not None and bool(cookie.value)

    def request(
        self,
        method: str,
        path: str,
        query: str = "",
        body: bytes | None = None,
        content_type: str = "application/x-www-form-urlencoded",
        headers: dict[str, str] | None = None,
    ) -> HttpResponse:
        self._prepare()
        self.requests += 1
        extra = {"QUERY_STRING": query, "HTTP_X_CSRFTOKEN": self.csrf_token, **(headers or {})}
        try:
            if method == "GET":
                response = self.client.get(path, **extra)
            else:
                response = self.client.generic(
                    method, path, data=body or b"", content_type=content_type, **extra
                )
        except Exception as error:  # noqa: BLE001  # escaped even Django's error handlers
            response = HttpResponse(status=500)
            response.exc_info = (type(error), error, None)  # type: ignore[attr-defined]
        self.session_hidden = "HTTP_COOKIE" in extra
        if response.status_code >= 500:
            error = getattr(response, "exc_info", None)
            cause = repr(error[1])[:300] if error else ""
            shown = {key: value[:60] for key, value in (headers or {}).items()}
            self.server_errors.append(
                f"{self.kind} {method} {path[:120]}?{query[:120]} {shown} "
                f"{content_type if body else ''} body={(body or b'')[:60]!r} "
                f"-> {response.status_code} {cause}"
            )
        return response

    def assert_no_server_error(self) -> None:
        assert not self.server_errors, (
            f"{len(self.server_errors)} of {self.requests} requests got a 5xx:\n"
            + "\n".join(self.server_errors[:60])
        )


def _seeds(site: Site) -> list[dict[str, str]]:
    """Harmless query strings a view is first asked with: a name to search for makes search
    pages read their filters, each tab its own."""
    name = quote(site.researcher.display_name)
    return [{}, {"q": name}, *({"q": name, "tab": tab} for tab in SEARCH_TABS)]


def _query(values: dict[str, str]) -> str:
    return "&".join(f"{key}={value}" for key, value in values.items())


def _discover(visitor: Visitor, path: str, method: str, seeds: list[dict[str, str]]) -> dict:
    """Which parameter keys the view reads, each with the seed it was first read under. A seed
    whose keys the view never read is not tried (only search pages read `tab`)."""
    read_under: dict[str, dict[str, str]] = {}
    for seed in seeds:
        if any(key not in read_under for key in seed):
            continue
        with parameters_read() as keys:
            if method == "GET":
                response = visitor.request("GET", path, _query(seed))
            else:
                # A key the view ignores makes request.POST non-empty, so forms bound with
                # `request.POST or None` read their fields.
                body = (_query(seed) or "sweep=1").encode()
                response = visitor.request("POST", path, body=body)
        if response.status_code == 405:
            return {}
        for key in sorted(keys):
            read_under.setdefault(key, seed)
    return read_under


def sweep_parameters(visitor: Visitor, path: str, method: str, site: Site) -> None:
    for key, seed in _discover(visitor, path, method, _seeds(site)).items():
        queries = [_query({**seed, key: value}) for value in HOSTILE_VALUES]
        queries += [
            "&".join(filter(None, [_query({k: v for k, v in seed.items() if k != key}), form]))
            for form in (template.format(key=quote(key)) for template in REPEATED_KEY_QUERIES)
        ]
        for query in queries:
            if method == "GET":
                visitor.request("GET", path, query)
            else:
                visitor.request("POST", path, body=query.encode())


@functools.cache
def api_body_properties() -> dict[str, list[str]]:
    """Each API operation that takes a body, as "METHOD /path/{param}/", with the properties of
    its request body according to the OpenAPI schema. Built once per process: the schema
    depends on the code alone (bzpeer.api_schema_view), and building it costs about 0.35 s of
    CPU, which each of the body sweep's 18 parts paid again."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema.get("components", {}).get("schemas", {})
    operations = {}
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            content = operation.get("requestBody", {}).get("content", {})
            reference = content.get("application/json", {}).get("schema", {}).get("$ref", "")
            properties = components.get(reference.rsplit("/", 1)[-1], {}).get("properties", {})
            operations[f"{method.upper()} {path}"] = sorted(properties)
    return operations
