"""OpenAlex API client: cursor paging, the polite pool's `mailto`, timeouts, and retries with
backoff on 429 and 5xx. A 4xx other than 429 is the caller's mistake and raises at once with
the message OpenAlex sent."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import orjson
from django.conf import settings

logger = logging.getLogger(__name__)

RETRYABLE_STATUSES = {429, 500, 502, 503, 504}


class OpenAlexError(Exception):
    """The API could not answer; the message says what went wrong and for which request."""


class OpenAlexRequestError(OpenAlexError):
    def __init__(self, status_code: int, message: str, url: str) -> None:
        super().__init__(f"OpenAlex answered {status_code} for {url}: {message}")
        self.status_code = status_code
        self.message = message


class OpenAlexClient:
    def __init__(
        self,
        *,
        base_url: str | None = None,
        mailto: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 5,
        backoff_seconds: float = 1.0,
        per_page: int = 200,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.mailto = settings.OPENALEX_MAILTO if mailto is None else mailto
        self.max_retries = max_retries
        self.backoff_seconds = backoff_seconds
        self.per_page = per_page
        self._sleep = sleep
        self._http = httpx.Client(
            base_url=base_url or settings.OPENALEX_API_URL,
            timeout=timeout,
            transport=transport,
            headers={"User-Agent": "bzpeer (+https://github.com/bzpeer)"},
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OpenAlexClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        retry_after = response.headers.get("Retry-After") if response is not None else None
        if retry_after and retry_after.isdigit():
            return float(retry_after)
        return self.backoff_seconds * (2**attempt)

    def get_json(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        params = dict(params or {})
        if self.mailto:
            params["mailto"] = self.mailto
        for attempt in range(self.max_retries + 1):
            response: httpx.Response | None = None
            try:
                response = self._http.get(path, params=params)
            except httpx.TransportError as exc:
                problem = f"{exc.__class__.__name__}: {exc}"
            else:
                if response.status_code < 400:
                    try:
                        return orjson.loads(response.content)
                    except orjson.JSONDecodeError as exc:
                        raise OpenAlexError(
                            f"OpenAlex sent invalid JSON for {response.url}: {exc}"
                        ) from exc
                if response.status_code not in RETRYABLE_STATUSES:
                    raise OpenAlexRequestError(
                        response.status_code, _error_message(response), str(response.url)
                    )
                problem = f"HTTP {response.status_code}"
            if attempt == self.max_retries:
                raise OpenAlexError(
                    f"OpenAlex request {path} failed after {attempt + 1} attempts: {problem}"
                )
            delay = self._delay(attempt, response)
            logger.warning("OpenAlex %s %s (%s); retrying in %.1fs", path, params, problem, delay)
            self._sleep(delay)
        raise AssertionError("unreachable")

    def iter_work_pages(self, filter_expression: str) -> Iterator[list[dict[str, Any]]]:
        """Yield pages of works for a filter (e.g. 'authorships.author.id:A5023888391')."""
        cursor: str | None = "*"
        while cursor:
            payload = self.get_json(
                "/works", {"filter": filter_expression, "per-page": self.per_page, "cursor": cursor}
            )
            results = payload.get("results") or []
            if not results:
                return
            yield results
            cursor = (payload.get("meta") or {}).get("next_cursor")

    def iter_works(self, filter_expression: str) -> Iterator[dict[str, Any]]:
        for page in self.iter_work_pages(filter_expression):
            yield from page


def _error_message(response: httpx.Response) -> str:
    try:
        body = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        return response.text[:500] or response.reason_phrase
    if isinstance(body, dict):
        return str(body.get("message") or body.get("error") or body)[:2000]
    return str(body)[:2000]
