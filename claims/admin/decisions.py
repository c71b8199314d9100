"""What every moderation action shares: the page asking for a reason, and the outcome messages."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from claims.forms import ReasonForm

REASON_TEMPLATE = "claims/admin/reason_form.html"


def reason_step(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet,
    *,
    title: str,
    action: str,
    button: str,
    help_text: str,
) -> tuple[str | None, HttpResponse | None]:
    """An intermediate page asking for a reason. Returns (reason, None) once submitted, or
    (None, the page to show)."""
    form = ReasonForm(request.POST if "apply" in request.POST else None)
    form.fields["reason"].help_text = help_text
    if "apply" in request.POST and form.is_valid():
        return form.cleaned_data["reason"], None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "objects": queryset,
        "form": form,
        "action": action,
        "button": button,
        "opts": modeladmin.model._meta,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return None, TemplateResponse(request, REASON_TEMPLATE, context)


def report_outcome(
    modeladmin: admin.ModelAdmin, request: HttpRequest, done: int, refused: list[str], verb: str
) -> None:
    """One success message for the rows decided, one error message per row refused."""
    if done:
        modeladmin.message_user(request, f"{done} {verb}.", messages.SUCCESS)
    for message in refused:
        modeladmin.message_user(request, message, messages.ERROR)
