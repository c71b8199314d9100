"""The notifications list, the email preferences page and the one-click unsubscribe endpoint.

The unsubscribe link works without signing in (its signed token names the user and the
category). A GET only shows what the link would turn off, because mail scanners follow links;
the change is a POST: either RFC 8058's one-click POST, whose body is exactly
`List-Unsubscribe=One-Click` and which comes from a mail provider without cookies (the only
request exempted from the CSRF check), or the confirmation page's form, CSRF-checked as usual.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from bzpeer.errors import ServiceError, service_error_as_message

from . import selectors, services
from .forms import NotificationPreferencesForm

LIST_LIMIT = 100


@login_required
@require_safe
def notification_list(request: HttpRequest) -> HttpResponse:
    notifications = selectors.notifications_for(request.user, limit=LIST_LIMIT)
    return render(
        request,
        "notifications/list.html",
        {
            "notifications": notifications,
            "unread_count": selectors.unread_notifications_count(request.user),
        },
    )


@login_required
@require_POST
def notifications_read(request: HttpRequest) -> HttpResponse:
    marked = services.notifications_mark_read(user=request.user)
    if marked:
        messages.success(request, "All your notifications are marked as read.")
    return redirect("notifications:list")


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def preferences(request: HttpRequest) -> HttpResponse:
    form = NotificationPreferencesForm(
        request.POST if request.method == "POST" else None,
        initial=selectors.deliveries_for(request.user),
    )
    status = 200
    if request.method == "POST":
        if form.is_valid():
            with service_error_as_message(request) as refusal:
                # Only what the user changed is stored: a category left at its default keeps
                # following the default (the digest's moves from off to weekly with a first
                # follow), rather than being pinned to what the page happened to show.
                services.notification_preferences_set(
                    user=request.user,
                    deliveries={name: form.cleaned_data[name] for name in form.changed_data},
                )
                messages.success(request, "Your email choices are saved.")
                return redirect("notifications:preferences")
            status = refusal.status_code
        else:
            status = 400
    return render(request, "notifications/preferences.html", {"form": form}, status=status)


def _is_one_click(request: HttpRequest) -> bool:
    """RFC 8058: the body is `List-Unsubscribe=One-Click` (urlencoded or multipart), nothing else."""
    return list(request.POST.lists()) == [("List-Unsubscribe", ["One-Click"])]


def _csrf_refusal(request: HttpRequest) -> HttpResponse | None:
    """The CSRF middleware's own check, for a view exempted from it only in part: None when the
    request passes, else the 403 the middleware would have answered."""
    return CsrfViewMiddleware(lambda request: HttpResponse()).process_view(request, None, (), {})


@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    if request.method == "POST" and _is_one_click(request):
        # Plain text: a mail provider reads only the status. No message framework here, so
        # the answer sets no cookie either.
        try:
            services.notifications_unsubscribe(token=token)
        except ServiceError as refusal:
            return HttpResponse(
                refusal.message,
                status=refusal.status_code,
                content_type="text/plain; charset=utf-8",
            )
        return HttpResponse(
            "You are unsubscribed: these emails will not be sent to you again.",
            content_type="text/plain; charset=utf-8",
        )
    if request.method == "POST":
        refused = _csrf_refusal(request)
        if refused is not None:
            return refused
        with service_error_as_message(request) as refusal:
            outcome = services.notifications_unsubscribe(token=token)
            target = selectors.unsubscribe_target(token)
            return render(
                request,
                "notifications/unsubscribe.html",
                {"target": target, "done": True, "outcome": outcome},
            )
        return render(request, "notifications/unsubscribe_invalid.html", status=refusal.status_code)
    with service_error_as_message(request) as refusal:
        target = selectors.unsubscribe_target(token)
        return render(request, "notifications/unsubscribe.html", {"target": target, "done": False})
    return render(request, "notifications/unsubscribe_invalid.html", status=refusal.status_code)
