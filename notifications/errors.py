"""Refusals of the notifications services (bzpeer.errors maps them to HTTP)."""

from __future__ import annotations

from rest_framework import status

from bzpeer.errors import ServiceError


class RecipientGone(ServiceError):
    """A link names an account that no longer exists (404)."""

    status_code: int = status.HTTP_404_NOT_FOUND
