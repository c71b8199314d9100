"""The feed pages: /feed/ (newest arrivals of what the user follows), "mark all read", mute,
the header's new-items badge, and the Atom feeds of researchers and topics (feed.atom)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import escape
from django.views.decorators.http import require_POST, require_safe

from publications.models import Topic
from researchers import selectors as researcher_selectors

from . import selectors, services


@login_required
@require_safe
def feed(request: HttpRequest) -> HttpResponse:
    cursor = request.GET.get("cursor") or None
    try:
        page = selectors.feed_page(request.user, cursor=cursor)
    except selectors.InvalidCursor as error:
        return HttpResponseBadRequest(escape(str(error)))
    context = {
        "feed_page": page,
        "is_first_page": cursor is None,
        # "Mark all read" marks read up to the newest item shown, not what arrived since.
        "read_up_to": (
            selectors.cursor_encode(page.items[0].arrived_at, page.items[0].pk)
            if page.items and cursor is None
            else ""
        ),
    }
    if request.htmx and request.htmx.target == "feed-items":
        return render(request, "feed/_feed_items.html", context, using="jinja2")
    return render(request, "feed/feed.html", context, using="jinja2")


@login_required
@require_POST
def feed_mark_read(request: HttpRequest) -> HttpResponse:
    through = None
    if request.POST.get("through"):
        try:
            through, _ = selectors.cursor_decode(request.POST["through"])
        except selectors.InvalidCursor as error:
            return HttpResponseBadRequest(escape(str(error)))
    services.feed_mark_read(user=request.user, through=through)
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Refresh"] = "true"
        return response
    return redirect("feed:feed")


@require_safe
def feed_new_badge(request: HttpRequest) -> HttpResponse:
    """The header's count of new items, loaded by htmx after the page (so no page pays for it
    and cached pages stay the same for everyone). Empty when there is nothing new."""
    if not request.user.is_authenticated:
        return HttpResponse("")
    count = selectors.feed_new_count(request.user)
    context = {"new_count": count, "new_label": selectors.new_count_label(count)}
    return render(request, "feed/_new_badge.html", context, using="jinja2")


@login_required
@require_POST
def follow_mute(request: HttpRequest, kind: str, key: str) -> HttpResponse:
    """Mute or unmute a followed researcher (kind "researcher", key the slug) or topic (kind
    "topic", key the id) in the feed; POST action=mute or action=unmute."""
    target: object
    if kind == "researcher":
        target = get_object_or_404(researcher_selectors.researchers_public(), slug=key)
    elif kind == "topic" and key.isdigit() and len(key) < 19:
        target = get_object_or_404(Topic, pk=int(key))
    else:
        return HttpResponse("No such record.", status=404)
    muted = request.POST.get("action") != "unmute"
    if not services.follow_mute_set(user=request.user, target=target, muted=muted):  # type: ignore[arg-type]
        return HttpResponse("You do not follow this.", status=404)
    if request.htmx:
        context = {"kind": kind, "key": key, "muted": muted}
        return render(request, "feed/_mute_button.html", context, using="jinja2")
    return redirect("following")
