"""HTTP helpers every app shares: the friendly 404 page, and who is asking.

Every limit keyed by the client's address (DRF's throttle, allauth's login and sign-up limits,
any of our own) takes that address from `client_address`, which believes X-Forwarded-For only
as far as TRUSTED_PROXY_COUNT proxies of our own have written it. Without that, one forged
header per request escapes the API throttle, and behind a proxy everyone would share the
proxy's address, so one attacker could lock every visitor out of signing in.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core.internal import ratelimit
from django.conf import settings
from django.contrib.sites.shortcuts import get_current_site
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from rest_framework import throttling
from rest_framework.request import Request


def not_found(request: HttpRequest, what: str) -> HttpResponse:
    """The friendly 404 page, naming what was not found ("researcher", "work", ...)."""
    return render(request, "404.html", {"what": what}, status=404)


def client_address(request: HttpRequest | Request) -> str:
    """The address of the client, as far as our own proxies vouch for it.

    With TRUSTED_PROXY_COUNT = 0 (no proxy in front) it is REMOTE_ADDR and X-Forwarded-For is
    ignored: anyone can write that header. With n proxies, each appends the address it was
    called from, so the n-th entry from the right was written by our outermost proxy and is
    the real client; entries further left are whatever the client sent. When the header is
    shorter than that, or its entry is not an address, the request did not come through all
    our proxies and REMOTE_ADDR is the only thing known.
    """
    remote_addr = str(request.META.get("REMOTE_ADDR") or "")
    proxies: int = settings.TRUSTED_PROXY_COUNT
    if proxies <= 0:
        return remote_addr
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    if len(forwarded) < proxies:
        return remote_addr
    try:
        return str(ipaddress.ip_address(forwarded[-proxies]))
    except ValueError:
        return remote_addr


class AnonRateThrottle(throttling.AnonRateThrottle):
    """DRF's anonymous throttle keyed by `client_address`.

    DRF's own get_ident trusts X-Forwarded-For unless NUM_PROXIES is set, and with NUM_PROXIES
    it takes the leftmost entry (the client's own words) when the header is short.
    """

    def get_ident(self, request: Request) -> str:
        return client_address(request)


class AccountAdapter(DefaultAccountAdapter):
    """allauth's adapter with the client address (its rate limits' "ip") from `client_address`,
    instead of allauth's own reading of X-Forwarded-For and ALLAUTH_TRUSTED_PROXY_COUNT."""

    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "too_many_login_attempts": (
            "Too many failed login attempts. Try again later, or log in with a code sent to "
            "your email address."
        ),
    }

    def get_client_ip(self, request: HttpRequest) -> str:
        address = client_address(request)
        if not address:
            # As allauth does: a limit per address cannot be applied without one.
            raise PermissionDenied("Unable to determine the client's address.")
        return address

    # Failed logins. allauth counts them under one key per account ("login_failed": 10/m per
    # address over all accounts, 5 in 5 minutes per key), so five guesses from anywhere locked the
    # owner out too. Here that key is the account *and* the client's address, and a second
    # count per account alone ("login_failed_account") has a higher ceiling: one address
    # guessing locks only itself out; many addresses together lock the password sign-in, and the
    # owner still signs in by a code sent to the verified address (ACCOUNT_LOGIN_BY_CODE_ENABLED).

    def _account_key(self, request: HttpRequest, **credentials: Any) -> str:
        login = str(credentials.get("email", credentials.get("username", ""))).lower()
        return f"{get_current_site(request).domain}:{login}"

    def _get_login_attempts_cache_key(self, request: HttpRequest, **credentials: Any) -> str:
        return f"{self._account_key(request, **credentials)}:{client_address(request)}"

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        per_address = ratelimit.consume(
            request,
            app="allauth.account",
            action="login_failed",
            key=self._get_login_attempts_cache_key(request, **credentials),
        )
        if not per_address:
            raise self.validation_error("too_many_login_attempts")
        per_account = ratelimit.consume(
            request,
            app="allauth.account",
            action="login_failed_account",
            key=self._account_key(request, **credentials),
        )
        if not per_account:
            per_address.rollback()
            raise self.validation_error("too_many_login_attempts")
        # A successful login rolls both back (allauth's authenticate).
        self._login_failed_rl_usage = ratelimit.RateLimitUsage(
            usage=per_address.usage + per_account.usage
        )

    def _delete_login_attempts_cached_email(self, request: HttpRequest, **credentials: Any) -> None:
        # After a password reset: the resetting address's count and the account's.
        super()._delete_login_attempts_cached_email(request, **credentials)
        ratelimit.clear(
            request,
            app="allauth.account",
            action="login_failed_account",
            key=self._account_key(request, **credentials),
        )
