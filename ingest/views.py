"""The claimant's "Add works from a BibTeX file": upload, preview, confirm.

The views gather the file or the preview's token and call ingest.services.bibtex_upload; only
the approved claimant of the record reaches them (claims' permission-checked lookup: anyone
else gets a 404, a visitor the login page). A refusal of the service (too large, not BibTeX,
an expired preview, too many uploads from the person or their address: 429 with Retry-After)
is shown on the upload page with its status.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from bzpeer.errors import ServiceError
from bzpeer.http import client_address
from claims.selectors import researcher_claimed_by_user_or_404
from researchers.models import Researcher

from .services.bibtex_upload import (
    MAX_BYTES,
    MAX_ENTRIES,
    bibtex_upload_confirm,
    bibtex_upload_preview,
)

_UPLOAD_TEMPLATE = "ingest/bibtex_upload.html"


def _upload_page(
    request: HttpRequest, researcher: Researcher, *, error: str = "", status: int = 200
) -> HttpResponse:
    context = {
        "researcher": researcher,
        "error": error,
        "max_megabytes": MAX_BYTES // (1024 * 1024),
        "max_entries": MAX_ENTRIES,
    }
    return render(request, _UPLOAD_TEMPLATE, context, status=status)


def _refusal_page(
    request: HttpRequest, researcher: Researcher, refusal: ServiceError
) -> HttpResponse:
    response = _upload_page(request, researcher, error=refusal.message, status=refusal.status_code)
    if refusal.retry_after is not None:
        response["Retry-After"] = str(refusal.retry_after)
    return response


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def bibtex_upload(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the upload form. POST: the preview of the file (nothing written)."""
    researcher = researcher_claimed_by_user_or_404(slug=slug, user=request.user)
    if request.method != "POST":
        return _upload_page(request, researcher)
    upload = request.FILES.get("file")
    if upload is None:
        return _upload_page(request, researcher, error="Choose a .bib file to upload.", status=400)
    # One byte over the cap is enough to refuse the file; the rest is never read.
    raw = upload.read(MAX_BYTES + 1)
    try:
        token, plan = bibtex_upload_preview(
            user=request.user,
            researcher=researcher,
            raw=raw,
            file_name=upload.name or "",
            client_address=client_address(request),
        )
    except ServiceError as refusal:
        return _refusal_page(request, researcher, refusal)
    return render(
        request,
        "ingest/bibtex_preview.html",
        {"researcher": researcher, "plan": plan, "token": token},
    )


@login_required
@require_POST
def bibtex_upload_confirm_view(request: HttpRequest, slug: str) -> HttpResponse:
    """Write what the preview showed; back to the profile with what was done."""
    researcher = researcher_claimed_by_user_or_404(slug=slug, user=request.user)
    try:
        result = bibtex_upload_confirm(
            user=request.user,
            researcher=researcher,
            token=request.POST.get("token", ""),
            client_address=client_address(request),
        )
    except ServiceError as refusal:
        return _refusal_page(request, researcher, refusal)
    added = result.created
    summary = (
        f"{added} new work{'s' if added != 1 else ''} added to your record"
        f", {result.updated} existing work{'s' if result.updated != 1 else ''} updated"
        f", {result.unchanged} already there"
        f"; {result.rejected} entr{'ies' if result.rejected != 1 else 'y'} not added."
    )
    messages.success(request, summary)
    if result.not_attached:
        messages.warning(
            request,
            "Added as sources but not linked to you, because their author list names "
            "someone else for your name (a moderator can merge the records): "
            + "; ".join(result.not_attached[:10]),
        )
    return redirect("researcher-profile", slug=researcher.slug)
