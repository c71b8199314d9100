"""The Jinja2 environment of the public read pages (profile, home, topic, institution,
following, the work page and the works listings they share).

These are the pages a visitor loads most and a crawler walks through, and a profile lists
up to twenty works with their bylines: Django's template language rendered such a page in
about 8 ms, Jinja2 renders the same markup in a fraction of that. Forms, accounts, claims and
the admin stay on Django templates (allauth and the admin ship them); base.html exists in both
languages and tests/bzpeer/test_page_shell.py checks that the two shells stay the same.

Everything Django's templates offered these pages is here under the same name: url() and
static(), the scholarly filters (imported text is escaped before any markup is added), the
claims app's trust band and identity panel, collaboration's panel and inbox badge
(collaboration.jinja), and htmx_script().
"""

from __future__ import annotations

import functools
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template.defaultfilters import capfirst, date, truncatechars
from django.templatetags.static import static
from django.urls import get_script_prefix, get_urlconf, reverse
from django_htmx.jinja import htmx_script
from jinja2 import Environment

from claims.templatetags.claims_tags import claim_panel_for, trust_band
from collaboration.jinja import JINJA_GLOBALS as COLLABORATION_GLOBALS
from publications.display import (
    category_tag,
    compact_byline,
    institution_short_name,
    work_categories,
    work_date_label,
)
from publications.templatetags.scholarly import (
    author_link,
    author_links,
    citations_chart,
    institution_url,
    jsonld,
    latex,
    researcher_url,
    topic_url,
    work_url,
)


def url(name: str, *args: Any) -> str:
    """{{ url('home') }}: reverse(), remembered. A page asks for the same thirty-odd URLs
    every time (the header's, the profile's panels'), and reverse() was 5-8% of a profile's
    render; the answer depends only on the name, the arguments, the URL configuration and the
    script prefix, so those are the key (with the arguments' types: 1 and True are equal keys
    but not the same URL)."""
    try:
        return _reversed(
            get_script_prefix(),
            get_urlconf() or settings.ROOT_URLCONF,
            name,
            args,
            tuple(type(arg) for arg in args),
        )
    except TypeError:  # an argument that cannot be a key (a list): reverse() as it was
        return reverse(name, args=args or None)


@functools.lru_cache(maxsize=2048)
def _reversed(
    _prefix: str, _urlconf: Any, name: str, args: tuple[Any, ...], _types: tuple[type, ...]
) -> str:
    return reverse(name, args=args or None)


def static_url(path: str) -> str:
    """{{ static('css/site.css') }}: Django's static(), remembered by path and script prefix
    (the manifest storage looked the hashed name up again on every call)."""
    return _static(get_script_prefix(), path)


@functools.lru_cache(maxsize=256)
def _static(_prefix: str, path: str) -> str:
    return static(path)


@receiver(setting_changed)
def _forget_remembered_urls(**_kwargs: Any) -> None:
    """A test that overrides a setting (the URL configuration, the static files' storage, DEBUG)
    gets the URLs of the new settings."""
    _reversed.cache_clear()
    _static.cache_clear()


def pluralize(count: int, suffix: str = "s") -> str:
    """{{ n }} citation{{ n|pluralize }}, as Django's filter of that name."""
    return "" if count == 1 else suffix


def environment(**options: Any) -> Environment:
    env = Environment(**options)  # noqa: S701 - Django's backend passes autoescape=True
    env.globals.update(
        url=url,
        static=static_url,
        htmx_script=htmx_script,
        claim_panel_for=claim_panel_for,
        citations_chart=citations_chart,
        work_date_label=work_date_label,
        work_categories=work_categories,
        compact_byline=compact_byline,
        institution_short_name=institution_short_name,
        author_link=author_link,
        author_links=author_links,
    )
    # The profile's "Direct collaboration" panel and the header's inbox badge.
    env.globals.update(COLLABORATION_GLOBALS)
    env.filters.update(
        latex=latex,
        jsonld=jsonld,
        researcher_url=researcher_url,
        topic_url=topic_url,
        work_url=work_url,
        institution_url=institution_url,
        trust_band=trust_band,
        pluralize=pluralize,
        category_tag=category_tag,
        # Django's filters of these names, for the work page.
        capfirst=capfirst,
        date=date,
        truncatechars=truncatechars,
    )
    return env
