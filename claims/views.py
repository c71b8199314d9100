"""Pages of the claim flow, the account page, disputes, vouches and profile editing.

Each view gathers input, calls a service or a selector and renders. Every state change is a
POST (CSRF-checked by the middleware); every object comes through a permission-checked
selector, so someone else's claim or record is a 404. A refusal of a service (bzpeer.errors.
ServiceError) becomes an error message through service_error_as_message: a form page is shown
again with the refusal's status (429 with Retry-After for a rate limit, `retry_after_header`),
a button redirects as it would on success.
"""

from __future__ import annotations

from allauth.account.decorators import reauthentication_required
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from bzpeer.errors import retry_after_header, service_error_as_message
from bzpeer.users.forms import TimeZoneForm
from bzpeer.users.services import user_time_zone_set
from notifications.services import notifications_mark_read
from publications.models import Work
from researchers.models import Researcher
from researchers.selectors import researcher_cv
from researchers.services import cv_entry_hidden_set

from . import selectors, services
from .forms import ClaimForm, ProfileEditForm, ReportForm, SplitRequestForm, VouchForm
from .models import Claim


def _profile(researcher: Researcher) -> str:
    return reverse("researcher-profile", args=[researcher.slug])


@login_required
@require_safe
def account(request: HttpRequest) -> HttpResponse:
    overview = selectors.account_overview(request.user)
    time_zone_form = TimeZoneForm(initial={"time_zone": request.user.time_zone})
    return render(
        request, "claims/account.html", {"overview": overview, "time_zone_form": time_zone_form}
    )


@login_required
@require_POST
def account_time_zone(request: HttpRequest) -> HttpResponse:
    """The account page's time zone form (the digests' 08:00). A name that is not in the list
    shows the account page again with the form's message, answered 400."""
    form = TimeZoneForm(request.POST)
    if form.is_valid():
        with service_error_as_message(request):
            user_time_zone_set(user=request.user, time_zone=form.cleaned_data["time_zone"])
            messages.success(request, f"Your time zone is now {request.user.time_zone}.")
        return redirect("claims:account")
    overview = selectors.account_overview(request.user)
    return render(
        request,
        "claims/account.html",
        {"overview": overview, "time_zone_form": form},
        status=400,
    )


@login_required
@require_POST
def notifications_read(request: HttpRequest) -> HttpResponse:
    notifications_mark_read(user=request.user)
    return redirect("claims:account")


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@retry_after_header
def claim_start(request: HttpRequest, slug: str) -> HttpResponse:
    researcher = selectors.researcher_for_claims_or_404(slug)
    panel = selectors.claim_panel(researcher=researcher, user=request.user)
    verified = selectors.user_verified_emails(request.user)
    domains = set(selectors.record_institution_domains(researcher))
    form = ClaimForm(
        request.POST or None,
        verified_emails=verified,
        institution_domains=domains,
        initial={"claimant_name": request.user.display_name or researcher.display_name},
    )
    status = 200
    if request.method == "POST":
        if not panel.can_claim:
            messages.error(request, panel.claim_blocked_reason or "You cannot claim this record.")
            return redirect(_profile(researcher))
        if form.is_valid():
            with service_error_as_message(request) as refusal:
                services.claim_submit(
                    user=request.user,
                    researcher=researcher,
                    claimant_name=form.cleaned_data["claimant_name"],
                    statement=form.cleaned_data["statement"],
                    presented_email=form.cleaned_data["presented_email"],
                    evidence_links=form.cleaned_data["evidence_links"],
                )
                messages.success(
                    request,
                    f"Your claim on {researcher.display_name} is submitted. The automatic "
                    "checks run now; their results appear below.",
                )
                return redirect("claims:account")
            status = refusal.status_code
        else:
            status = 400
    return render(
        request,
        "claims/claim_form.html",
        {"researcher": researcher, "panel": panel, "form": form, "verified_emails": verified},
        status=status,
    )


@login_required
@require_POST
def claim_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    # Someone else's claim is a 404 before anything is asked.
    claim = selectors.claim_for_user_or_404(user=request.user, claim_id=pk)
    return _claim_withdraw_confirmed(request, claim)


# Releasing a claim gives the record up: the password (or a 2FA code) is asked for again unless
# confirmed in the last few minutes; allauth's middleware replays this POST after it.
@reauthentication_required
def _claim_withdraw_confirmed(request: HttpRequest, claim: Claim) -> HttpResponse:
    with service_error_as_message(request):
        services.claim_withdraw(claim=claim, user=request.user)
        messages.success(request, f"Your claim on {claim.researcher.display_name} is withdrawn.")
    return redirect("claims:account")


@login_required
@require_POST
def vouch(request: HttpRequest, pk: int) -> HttpResponse:
    # Pending claims only; whether this user may vouch is the service's rule.
    claim = Claim.objects.select_related("researcher").filter(pk=pk, status="pending").first()
    if claim is None:
        raise Http404("No such claim.")
    form = VouchForm(request.POST)
    note = form.cleaned_data["note"] if form.is_valid() else ""
    with service_error_as_message(request):
        services.vouch_submit(voucher=request.user, claim=claim, note=note)
        messages.success(request, "Thank you: your vouch is recorded.")
    return redirect(_profile(claim.researcher))


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@retry_after_header
def report(request: HttpRequest, slug: str) -> HttpResponse:
    researcher = selectors.researcher_for_claims_or_404(slug)
    form = ReportForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            with service_error_as_message(request) as refusal:
                services.report_submit(
                    reporter=request.user, researcher=researcher, reason=form.cleaned_data["reason"]
                )
                messages.success(request, "Thank you. A moderator will review your report.")
                return redirect(_profile(researcher))
            status = refusal.status_code
        else:
            status = 400
    return render(
        request, "claims/report_form.html", {"researcher": researcher, "form": form}, status=status
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def profile_edit(request: HttpRequest, slug: str) -> HttpResponse:
    researcher = selectors.researcher_claimed_by_user_or_404(slug=slug, user=request.user)
    form = ProfileEditForm.for_researcher(
        researcher, data=request.POST if request.method == "POST" else None
    )
    if request.method == "POST" and form.is_valid():
        services.researcher_profile_update(
            researcher=researcher,
            user=request.user,
            tagline=form.cleaned_data["tagline"],
            homepage=form.cleaned_data["homepage"],
            links=form.cleaned_data["links"],
            open_to_collaborate=form.cleaned_data["open_to_collaborate"],
        )
        messages.success(request, "Your profile is updated.")
        return redirect(_profile(researcher))
    return render(
        request,
        "claims/profile_edit.html",
        {
            "researcher": researcher,
            "form": form,
            "works": selectors.works_for_claimant(researcher),
            "cv": researcher_cv(researcher.pk, include_hidden=True),
        },
        status=400 if request.method == "POST" else 200,
    )


@login_required
@require_POST
def work_not_mine(request: HttpRequest, slug: str, work_id: int) -> HttpResponse:
    researcher = selectors.researcher_claimed_by_user_or_404(slug=slug, user=request.user)
    work = Work.objects.filter(pk=work_id, authorships__researcher=researcher).first()
    if work is None:
        raise Http404("No such work on this record.")
    form = SplitRequestForm(request.POST)
    note = form.cleaned_data["note"] if form.is_valid() else ""
    with service_error_as_message(request):
        services.split_request_submit(
            user=request.user, researcher=researcher, work=work, note=note
        )
        messages.success(
            request, f"“{work.title}” is flagged as not yours; a moderator will review it."
        )
    return redirect("claims:profile-edit", slug=researcher.slug)


@require_safe
def trust_explain(request: HttpRequest, slug: str) -> HttpResponse:
    researcher = Researcher.objects.select_related("merged_into").filter(slug=slug).first()
    if researcher is None:
        raise Http404("No such researcher.")
    if researcher.merged_into_id:
        return redirect("claims:trust-explain", slug=researcher.merged_into.slug, permanent=True)
    return render(request, "claims/trust_explain.html", {"trust": selectors.trust_view(researcher)})


@login_required
@require_POST
def cv_entry_visibility(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    """Hide an entry of the claimant's CV from the profile, or show it again."""
    researcher = selectors.researcher_claimed_by_user_or_404(slug=slug, user=request.user)
    action = request.POST.get("action")
    if action not in ("hide", "show"):
        return HttpResponseBadRequest("Say whether to hide or show the entry.")
    if not cv_entry_hidden_set(
        researcher_id=researcher.pk, entry_id=entry_id, hidden=action == "hide"
    ):
        raise Http404("No such entry in this CV.")
    messages.success(
        request,
        "The entry is hidden from your profile."
        if action == "hide"
        else "The entry is shown on your profile again.",
    )
    return redirect(reverse("claims:profile-edit", args=[researcher.slug]) + "#cv-heading")


@login_required
@require_POST
def orcid_refresh(request: HttpRequest, slug: str) -> HttpResponse:
    """Import the record's ORCID iD again (CV and works); a few times an hour at most. A
    refusal (the rate limit, no iD) is the message on the page it goes back to."""
    researcher = selectors.researcher_claimed_by_user_or_404(slug=slug, user=request.user)
    with service_error_as_message(request):
        services.orcid_record_refresh(researcher=researcher, user=request.user)
        messages.success(
            request,
            f"Your ORCID record {researcher.orcid} is being imported; "
            "the changes appear on your profile in a few minutes.",
        )
    return redirect(reverse("claims:profile-edit", args=[researcher.slug]) + "#cv-heading")
