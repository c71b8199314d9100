"""The HTTP part every source client shares: timeouts, retries with backoff, and the source's
published rate limit.

Each source states how often it may be asked: arXiv one request every 3 seconds, Crossref's
polite pool a few a second with a mailto, ORCID's public API 24 a second. A client waits the
interval out before each request (measured on a monotonic clock, so a changed wall clock never
shortens it), retries 429, 5xx and transport errors with exponential backoff (or the
Retry-After the source sent), and raises at once on any other 4xx: the request was wrong and
asking again will not fix it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import httpx

logger = logging.getLogger(__name__)

RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})
USER_AGENT = "bzpeer (+https://github.com/bzpeer)"


class SourceError(Exception):
    """The source could not answer; the message says which request and why."""


class SourceRequestError(SourceError):
    """The source refused the request (a 4xx other than 429); not retried."""

    def __init__(self, source: str, status_code: int, url: str, body: bytes) -> None:
        text = body[:300].decode("utf-8", "replace").strip() or "no message"
        super().__init__(f"{source} answered {status_code} for {url}: {text}")
        self.status_code = status_code
        self.url = url
        self.body = body


class PoliteClient:
    def __init__(
        self,
        *,
        source: str,
        base_url: str,
        min_interval_seconds: float,
        timeout: float = 30.0,
        max_retries: int = 4,
        backoff_seconds: float = 2.0,
        headers: dict[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.source = source
        self.min_interval_seconds = min_interval_seconds
        self.max_retries = max_retries
        self.backoff_seconds = backoff_seconds
        self._sleep = sleep
        self._clock = clock
        self._last_request_at: float | None = None
        self._http = httpx.Client(
            base_url=base_url,
            timeout=timeout,
            transport=transport,
            headers={"User-Agent": USER_AGENT, **(headers or {})},
            follow_redirects=True,
        )

    def close(self) -> None:
        self._http.close()

    def _wait_for_turn(self) -> None:
        if self._last_request_at is not None:
            remaining = self.min_interval_seconds - (self._clock() - self._last_request_at)
            if remaining > 0:
                self._sleep(remaining)
        self._last_request_at = self._clock()

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        retry_after = response.headers.get("Retry-After") if response is not None else None
        if retry_after and retry_after.isdigit():
            return max(float(retry_after), self.min_interval_seconds)
        return max(self.backoff_seconds * (2**attempt), self.min_interval_seconds)

    def get(
        self,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        accept_statuses: frozenset[int] = frozenset(),
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        """GET with the rate limit and retries. A status in `accept_statuses` is returned to the
        caller instead of raised (arXiv answers a bad id with 400 and an Atom error entry)."""
        for attempt in range(self.max_retries + 1):
            self._wait_for_turn()
            response: httpx.Response | None = None
            try:
                response = self._http.get(path, params=params, headers=headers)
            except httpx.TransportError as exc:
                problem = f"{exc.__class__.__name__}: {exc}"
            else:
                status = response.status_code
                if status < 400 or status in accept_statuses:
                    return response
                if status not in RETRYABLE_STATUSES:
                    raise SourceRequestError(
                        self.source, status, str(response.url), response.content
                    )
                problem = f"HTTP {status}"
            if attempt == self.max_retries:
                raise SourceError(
                    f"{self.source} request {path} failed after {attempt + 1} attempts: {problem}"
                )
            delay = self._delay(attempt, response)
            logger.warning("%s %s (%s); retrying in %.1fs", self.source, path, problem, delay)
            self._sleep(delay)
        raise AssertionError("unreachable")
