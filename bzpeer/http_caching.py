"""HTTP caching of public pages: what any cache or CDN in front may keep, and conditional GETs.

`public_page(etag)` wraps a page view:
- for an anonymous visitor, the response says `Cache-Control: public, max-age=HTTP_CACHE_MAX_AGE,
  stale-while-revalidate=HTTP_CACHE_STALE_WHILE_REVALIDATE` and carries the ETag that `etag`
  computes from the record's state; a request whose If-None-Match names that ETag is answered
  304 by Django's condition() before the view runs, so nothing is rendered;
- for a signed-in user, `Cache-Control: private` and Vary: Cookie (the page shows their follow
  buttons, their claim panel); no ETag is computed;
- a response that sets a cookie, an htmx fragment, or an error is never public.

`etag` must be cheap (one small query or a Redis read): it runs on every anonymous request,
including the ones it then answers 304.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.views.decorators.http import condition

EtagFunction = Callable[..., str | None]


def _anonymous_full_page(request: HttpRequest) -> bool:
    return not request.user.is_authenticated and not getattr(request, "htmx", False)


def validator_period() -> int:
    """The current period of HTTP_CACHE_VALIDATOR_SECONDS: part of every ETag, so a page whose
    state misses something it shows (another record's name, a ranking) still changes its ETag
    at least this often."""
    return int(time.time() // max(1, settings.HTTP_CACHE_VALIDATOR_SECONDS))


def public_page(etag: EtagFunction) -> Callable[[Callable[..., HttpResponse]], Any]:
    def etag_for_anonymous(request: HttpRequest, *args: Any, **kwargs: Any) -> str | None:
        if not _anonymous_full_page(request):
            return None
        value = etag(request, *args, **kwargs)
        return None if value is None else f"{value}-{validator_period()}"

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        conditional_view = condition(etag_func=etag_for_anonymous)(view)

        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            response = conditional_view(request, *args, **kwargs)
            if request.user.is_authenticated:
                patch_cache_control(response, private=True)
                patch_vary_headers(response, ["Cookie"])
            elif (
                response.status_code in (200, 304)
                and not response.cookies
                and _anonymous_full_page(request)
            ):
                patch_cache_control(
                    response,
                    public=True,
                    max_age=settings.HTTP_CACHE_MAX_AGE,
                    stale_while_revalidate=settings.HTTP_CACHE_STALE_WHILE_REVALIDATE,
                )
            else:
                patch_cache_control(response, private=True)
            return response

        return wrapped

    return decorator


class PrivateWhenSettingCookiesMiddleware:
    """A response that sets a cookie is never public, whoever marked it so; a response to a
    signed-in person is never stored by anyone (`private, no-store`).

    `public_page` decides before the session, CSRF and messages middleware have added their
    cookies (a message stored in an anonymous session, say); a shared cache keeping such a
    response would hand that cookie to everyone. Outside those middleware, so it sees them.
    A page or API answer for a signed-in user depends on who they are (their inbox, account,
    feed, the badge in the header): `Vary: Cookie` alone leaves it to a CDN to honour it, so
    every such answer says `private, no-store` itself.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            patch_cache_control(response, private=True, no_store=True)
        elif response.cookies and "public" in response.get("Cache-Control", ""):
            patch_cache_control(response, private=True)
        return response


# allauth's pages: sign-in, codes, emails, password, two-factor, sessions, reauthentication.
ACCOUNT_PAGES_PREFIX = "/accounts/"


class AccountPagesNoStoreMiddleware:
    """allauth's pages say `Cache-Control: private, no-store`: they show a person's emails,
    sessions and addresses, recovery codes and a TOTP secret, and set the session's cookies;
    no cache, shared or the browser's, keeps them."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path.startswith(ACCOUNT_PAGES_PREFIX):
            patch_cache_control(response, private=True, no_store=True)
        return response
