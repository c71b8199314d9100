"""Response headers Django's SecurityMiddleware does not send."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

# The powerful browser features no bzpeer page uses, turned off for the page and every frame
# in it: a script injected through some hole cannot reach the camera, the microphone, the
# position, payments or USB devices, nor enrol visitors in ad-interest tracking
# (browsing-topics, the successor of FLoC's interest-cohort, which Chromium no longer knows and
# reports as an error). Only features browsers recognise are named, so none logs a warning.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "browsing-topics",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "payment",
        "usb",
    )
)


class PermissionsPolicyMiddleware:
    """Adds Permissions-Policy to every response that has not set its own."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response
