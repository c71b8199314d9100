"""HTTP helpers every app shares: the friendly 404 page, and who is asking.

Every limit keyed by the client's address (DRF's throttle, allauth's login and sign-up limits,
any of our own) takes that address from `client_address`, which believes X-Forwarded-For only
as far as TRUSTED_PROXY_COUNT proxies of our own have written it. Without that, one forged
header per request escapes the API throttle, and behind a proxy everyone would share the
proxy's address, so one attacker could lock every visitor out of signing in.
"""

from __future__ import annotations

import ipaddress

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
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

    def get_client_ip(self, request: HttpRequest) -> str:
        address = client_address(request)
        if not address:
            # As allauth does: a limit per address cannot be applied without one.
            raise PermissionDenied("Unable to determine the client's address.")
        return address
