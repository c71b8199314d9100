"""Pages of direct collaboration: the invitation sent from a profile, the inbox, a
conversation, blocks, reports, the collaboration settings and the account deletion.

Each view gathers input, calls a service or a selector and renders. Every state change is a
POST (CSRF-checked by the middleware) by a signed-in user; every object comes through the
services and selectors, which answer someone else's invitation, conversation or message with
Http404. A refusal (bzpeer.errors.ServiceError) becomes an error message through
service_error_as_message; a button then redirects back as it would on success, and an htmx
request gets the message as a fragment in place of the form.
"""

from __future__ import annotations

from allauth.account.decorators import reauthentication_required
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from bzpeer.errors import ServiceError, service_error_as_message
from researchers.models import Researcher
from researchers.selectors import researchers_public

from . import selectors, services
from .forms import (
    AccountDeleteForm,
    CollaborationSettingsForm,
    InvitationForm,
    MessageForm,
    ReportForm,
)
from .markup import inbox_badge

CONVERSATIONS_PER_PAGE = 30
HTMX_STOP_POLLING = 286


def _researcher_or_404(slug: str) -> Researcher:
    researcher = researchers_public().filter(slug=slug).first()
    if researcher is None:
        raise Http404("No such researcher.")
    return researcher


def _back(request: HttpRequest, default: str) -> HttpResponse:
    """Back to the page the button was on (a `next` field of this site), else `default`."""
    target = request.POST.get("next", "")
    # Only a path of this site: redirect() would read any other string as a view name.
    if target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return HttpResponseRedirect(target)
    return redirect(default)


def _profile_url(researcher: Researcher) -> str:
    return reverse("researcher-profile", args=[researcher.slug])


def _page_number(request: HttpRequest) -> int:
    try:
        return max(1, min(int(request.GET.get("page", "1")), 10_000))
    except ValueError:
        return 1


# --- the invitation, from a profile -----------------------------------------------------------


@login_required
@require_POST
def invite(request: HttpRequest, slug: str) -> HttpResponse:
    researcher = _researcher_or_404(slug)
    form = InvitationForm(request.POST)
    if form.is_valid():
        with service_error_as_message(request):
            services.invitation_send(
                sender=request.user,
                recipient_researcher=researcher,
                kind=form.cleaned_data["kind"],
                purpose=form.cleaned_data["purpose"],
                work_ids=form.cleaned_data["works"],
                topic_ids=form.cleaned_data["topics"],
            )
            messages.success(
                request,
                f"Your invitation is sent to {researcher.display_name}. You will be told when "
                "they answer.",
            )
    else:
        errors = "; ".join(
            f"{form.fields[name].label}: {' '.join(errs)}" if name != "__all__" else " ".join(errs)
            for name, errs in form.errors.items()
        )
        messages.error(request, f"The invitation was not sent. {errors}")
    if request.htmx:
        # The panel is swapped for its new state with the message on top (sent: the pending
        # invitation and its withdraw button; refused: the form again).
        # Answered 200 whatever happened: htmx swaps no 4xx answer, and the message says it.
        context = {
            "researcher": researcher,
            "collab_panel": selectors.collaboration_panel_for(researcher, request.user),
            "fragment": True,
        }
        return render(
            request, "collaboration/_profile_collaboration_panel.html", context, using="jinja2"
        )
    return redirect(_profile_url(researcher))


@login_required
@require_safe
def invite_anchors(request: HttpRequest, slug: str) -> HttpResponse:
    """The invitation picker's search (htmx, as the person types): a bounded list of checkboxes,
    works (or topics with ?kind=topics) of the viewer or of this researcher matching ?q=.
    Someone who may not invite this researcher gets the refusal's status and message."""
    researcher = _researcher_or_404(slug)
    kind = "topics" if request.GET.get("kind") == "topics" else "works"
    try:
        options = selectors.anchor_search(
            researcher, request.user, kind=kind, query=request.GET.get("q", "")
        )
    except ServiceError as refusal:
        return HttpResponse(refusal.message, status=refusal.status_code, content_type="text/plain")
    response = render(
        request,
        "collaboration/_anchor_options.html",
        {"options": options, "kind": kind},
        using="jinja2",
    )
    response["Cache-Control"] = "private, no-store"
    return response


# --- invitations -------------------------------------------------------------------------------


@login_required
@require_safe
def invitation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    invitation = selectors.invitation_for(request.user, pk)
    return render(
        request,
        "collaboration/invitation_detail.html",
        {"invitation": invitation, "report_form": ReportForm()},
    )


@login_required
@require_POST
def invitation_accept(request: HttpRequest, pk: int) -> HttpResponse:
    with service_error_as_message(request):
        conversation = services.invitation_accept(user=request.user, invitation_id=pk)
        messages.success(request, "Invitation accepted: the conversation is open.")
        return redirect("collaboration:conversation", pk=conversation.pk)
    return _back(request, reverse("collaboration:inbox"))


@login_required
@require_POST
def invitation_decline(request: HttpRequest, pk: int) -> HttpResponse:
    with service_error_as_message(request):
        services.invitation_decline(user=request.user, invitation_id=pk)
        messages.success(request, "Invitation declined.")
    return _back(request, reverse("collaboration:inbox"))


@login_required
@require_POST
def invitation_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    with service_error_as_message(request):
        services.invitation_withdraw(user=request.user, invitation_id=pk)
        messages.success(request, "Invitation withdrawn.")
    return _back(request, reverse("collaboration:inbox"))


@login_required
@require_POST
def invitation_report(request: HttpRequest, pk: int) -> HttpResponse:
    # The lookup first: someone else's invitation is a 404 even with an empty reason.
    selectors.invitation_for(request.user, pk)
    form = ReportForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Say in a few words what is wrong with it.")
    else:
        with service_error_as_message(request):
            services.report_create(
                reporter=request.user, reason=form.cleaned_data["reason"], invitation_id=pk
            )
            messages.success(request, "Thank you. A moderator will review your report.")
    return _back(request, reverse("collaboration:inbox"))


# --- the inbox and its badge -------------------------------------------------------------------


@login_required
@require_safe
def inbox(request: HttpRequest) -> HttpResponse:
    page = _page_number(request)
    box = selectors.inbox_for(request.user, page=page, per_page=CONVERSATIONS_PER_PAGE)
    # Jinja2, as the public list pages (pages/jinja2.py): 30 conversations and up to 100
    # invitations with their buttons render in a fraction of the Django template's time.
    return render(request, "collaboration/inbox.html", {"inbox": box, "page": page}, using="jinja2")


@require_safe
def badge(request: HttpRequest) -> HttpResponse:
    """The header badge alone, polled by htmx about once a minute while the tab is visible.

    Signed out meanwhile (in another tab, or the session expired): a poll answers 286, htmx's
    "stop polling", with nothing to swap in; a redirect to the login page would be followed
    and the login page swapped into the header. Anything but a poll goes to log in."""
    if not request.user.is_authenticated:
        if request.htmx:
            return HttpResponse("", status=HTMX_STOP_POLLING)
        return redirect_to_login(request.get_full_path())
    response = HttpResponse(inbox_badge(request.user))
    response["Cache-Control"] = "private, no-store"
    return response


# --- a conversation ----------------------------------------------------------------------------


def _report_id(request: HttpRequest) -> int | None:
    """The message whose report form is open (?report=<id>); nothing else on the page has one."""
    raw = request.GET.get("report", "")
    return int(raw) if raw.isdigit() and len(raw) < 19 else None


def _conversation_page(
    request: HttpRequest,
    pk: int,
    *,
    form: MessageForm | None = None,
    status: int = 200,
    draft_refused: bool = False,
) -> HttpResponse:
    thread = selectors.conversation_for(request.user, pk)
    context = {
        "thread": thread,
        "form": form or MessageForm(),
        "report_id": _report_id(request),
        "draft_refused": draft_refused,
    }
    # Jinja2: 200 messages through Django's template language cost about 50 ms to render.
    return render(
        request, "collaboration/conversation.html", context, status=status, using="jinja2"
    )


@login_required
@require_safe
def conversation(request: HttpRequest, pk: int) -> HttpResponse:
    # Read before it is drawn, so the header badge on this very page no longer counts what the
    # page shows (the service forgets the cached badge). Anyone but the two gets a 404 here.
    services.conversation_mark_read(user=request.user, conversation_id=pk)
    return _conversation_page(request, pk)


@login_required
@require_POST
def message_send(request: HttpRequest, pk: int) -> HttpResponse:
    form = MessageForm(request.POST)
    if not form.is_valid():
        selectors.conversation_for(request.user, pk)  # 404 before any form error
        return _conversation_page(request, pk, form=form, status=400)
    with service_error_as_message(request):
        message = services.message_send(
            author=request.user, conversation_id=pk, body=form.cleaned_data["body"]
        )
        return redirect(reverse("collaboration:conversation", args=[pk]) + f"#m{message.pk}")
    # Refused (blocked either way: "unavailable"; suspended): the conversation again, with the
    # refusal said once (the page's message) and the text the person typed still in the box.
    # Answered 200, as a form shown again with what to do: a 4xx would have the browser report
    # a failed page load for a page that shows exactly what the person needs. Someone else's
    # conversation was a 404 in the service already.
    return _conversation_page(request, pk, form=form, draft_refused=True)


@login_required
@require_POST
def message_delete(request: HttpRequest, pk: int) -> HttpResponse:
    message = selectors.message_for(request.user, pk)
    with service_error_as_message(request):
        services.message_delete(user=request.user, message_id=pk)
        messages.success(request, "Message deleted.")
    return redirect("collaboration:conversation", pk=message.conversation_id)


@login_required
@require_POST
def message_report(request: HttpRequest, pk: int) -> HttpResponse:
    message = selectors.message_for(request.user, pk)
    form = ReportForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Say in a few words what is wrong with it.")
    else:
        with service_error_as_message(request):
            services.report_create(
                reporter=request.user, reason=form.cleaned_data["reason"], message_id=pk
            )
            messages.success(request, "Thank you. A moderator will review your report.")
    return redirect("collaboration:conversation", pk=message.conversation_id)


@login_required
@require_POST
def conversation_mute(request: HttpRequest, pk: int) -> HttpResponse:
    muted = request.POST.get("muted") != "0"
    services.conversation_mute(user=request.user, conversation_id=pk, muted=muted)
    messages.success(request, "Conversation muted." if muted else "Conversation unmuted.")
    return _back(request, reverse("collaboration:conversation", args=[pk]))


# --- blocks ------------------------------------------------------------------------------------


@login_required
@require_POST
def block(request: HttpRequest, slug: str) -> HttpResponse:
    researcher = _researcher_or_404(slug)
    with service_error_as_message(request):
        services.block_create(blocker=request.user, researcher=researcher)
        messages.success(
            request,
            f"You blocked {researcher.display_name}: no invitations, messages or notifications "
            "either way. They are not told.",
        )
    return _back(request, _profile_url(researcher))


@login_required
@require_POST
def unblock(request: HttpRequest, slug: str) -> HttpResponse:
    researcher = _researcher_or_404(slug)
    with service_error_as_message(request):
        services.block_delete(blocker=request.user, researcher=researcher)
        messages.success(request, f"You unblocked {researcher.display_name}.")
    return _back(request, _profile_url(researcher))


# --- account: settings and deletion ------------------------------------------------------------


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def collaboration_settings(request: HttpRequest) -> HttpResponse:
    current = selectors.collaboration_settings_for(request.user)
    form = CollaborationSettingsForm(
        request.POST if request.method == "POST" else None,
        initial={"who_may_invite": current.who_may_invite},
    )
    if request.method == "POST" and form.is_valid():
        with service_error_as_message(request):
            services.collaboration_settings_update(
                user=request.user, who_may_invite=form.cleaned_data["who_may_invite"]
            )
            messages.success(request, "Your collaboration settings are saved.")
        return redirect("collaboration:settings")
    return render(
        request,
        "collaboration/settings.html",
        {"form": form, "current": current},
        status=400 if request.method == "POST" else 200,
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
# The password (or a 2FA code) again, as well as the typed address; allauth replays the POST.
# The page itself (GET, HEAD) is shown without it.
@reauthentication_required(enabled=lambda request: request.method == "POST")
def account_delete(request: HttpRequest) -> HttpResponse:
    form = AccountDeleteForm(
        request.POST if request.method == "POST" else None, account_email=request.user.email
    )
    if request.method == "POST" and form.is_valid():
        with service_error_as_message(request):
            services.account_delete(user=request.user)
            logout(request)
            messages.success(request, "Your account is deleted. Thank you for having been here.")
            return redirect("home")
        return redirect("collaboration:account-delete")
    return render(
        request,
        "collaboration/account_delete.html",
        {"form": form},
        status=400 if request.method == "POST" else 200,
    )


@login_required
@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def account_export(request: HttpRequest) -> HttpResponse:
    """'Download my data': POST asks for a new export (built by a task after commit); GET shows
    the latest one, and its link while it works. Private: `Cache-Control: private, no-store`."""
    if request.method == "POST":
        with service_error_as_message(request):
            services.account_export_request(user=request.user)
            messages.success(
                request, "Your data is being gathered. The link appears here in a moment."
            )
        return redirect("collaboration:account-export")
    export = selectors.account_export_latest(request.user)
    link = expires_at = None
    if export is not None and export.status == "ready":
        expires_at = services.account_export_expires_at(export)
        if expires_at is not None and expires_at > timezone.now():
            link = reverse(
                "collaboration:account-export-download",
                args=[services.account_export_link_token(export)],
            )
    return render(
        request,
        "collaboration/account_export.html",
        {
            "export": export,
            "link": link,
            "expires_at": expires_at,
            "link_hours": settings.ACCOUNT_EXPORT_LINK_SECONDS // 3600,
        },
    )


@login_required
@never_cache
@require_safe
def account_export_download(request: HttpRequest, token: str) -> HttpResponse:
    """The export as a JSON file, for its owner only while the link works; otherwise 404."""
    export = services.account_export_for_download(user=request.user, token=token)
    response = HttpResponse(bytes(export.content or b""), content_type="application/json")
    day = (export.finished_at or timezone.now()).date().isoformat()
    response["Content-Disposition"] = f'attachment; filename="bzpeer-my-data-{day}.json"'
    return response
