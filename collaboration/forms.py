"""Forms of the collaboration pages: the invitation (profile panel), a message, a report, the
collaboration settings and the account deletion.

They check shape only (choices; the texts by the services' own rules, collaboration.services
.text); every rule about who may do what is the services'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms

from bzpeer.errors import InvalidRequest

from .models import (
    MESSAGE_MAX_LENGTH,
    PURPOSE_MAX_LENGTH,
    PURPOSE_MIN_LENGTH,
    InvitationKind,
    WhoMayInvite,
)
from .services import text


def _is_id(value: object) -> bool:
    return str(value).isdigit() and len(str(value)) < 19


def _by_the_rule(rule: Callable[[str], str], value: str) -> str:
    """The service's rule for a text, its refusal as the field's error."""
    try:
        return rule(value)
    except InvalidRequest as refusal:
        raise forms.ValidationError(refusal.message) from refusal


class InvitationForm(forms.Form):
    kind = forms.ChoiceField(label="What kind of collaboration", choices=InvitationKind.choices)
    # The lengths are the service's rule (collaboration.services.text), counted as a person
    # sees the text; the browser's maxlength counts a line break once, as the rule does.
    purpose = forms.CharField(
        label="Purpose",
        widget=forms.Textarea(attrs={"rows": 5, "maxlength": PURPOSE_MAX_LENGTH}),
        help_text=f"{PURPOSE_MIN_LENGTH} to {PURPOSE_MAX_LENGTH:,} characters: what you propose "
        "and why them.",
    )
    # Ids only: which works and topics may anchor an invitation (the two people's, at most 20
    # each) is the service's rule, so the picker's search can offer any of theirs.
    works = forms.TypedMultipleChoiceField(
        label="Anchor works (optional)", coerce=int, required=False
    )
    topics = forms.TypedMultipleChoiceField(
        label="Anchor topics (optional)", coerce=int, required=False
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in ("works", "topics"):
            # Any whole number is a valid choice here; the service checks whose it is.
            self.fields[name].valid_value = _is_id  # type: ignore[attr-defined]

    def clean_purpose(self) -> str:
        return _by_the_rule(text.purpose_clean, self.cleaned_data["purpose"])


class MessageForm(forms.Form):
    body = forms.CharField(
        label="Message",
        widget=forms.Textarea(attrs={"rows": 4, "maxlength": MESSAGE_MAX_LENGTH}),
    )

    def clean_body(self) -> str:
        return _by_the_rule(text.message_body_clean, self.cleaned_data["body"])


class ReportForm(forms.Form):
    reason = forms.CharField(
        label="What is wrong with it?",
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": text.REASON_MAX_LENGTH}),
    )

    def clean_reason(self) -> str:
        return _by_the_rule(text.reason_clean, self.cleaned_data["reason"])


class CollaborationSettingsForm(forms.Form):
    who_may_invite = forms.ChoiceField(
        label="Who may invite you",
        choices=WhoMayInvite.choices,
        widget=forms.RadioSelect,
    )


class AccountDeleteForm(forms.Form):
    """Typing the account's email address, or ticking the box for an account without one."""

    email = forms.CharField(label="Type your email address to confirm", required=False)
    confirm = forms.BooleanField(
        label="I understand that this deletes my account and cannot be undone", required=False
    )

    def __init__(self, *args: Any, account_email: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.account_email = account_email

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        typed = (cleaned.get("email") or "").strip().lower()
        if self.account_email:
            if typed != self.account_email.strip().lower():
                raise forms.ValidationError("Type your email address exactly to confirm.")
        elif not cleaned.get("confirm"):
            raise forms.ValidationError("Tick the box to confirm.")
        return cleaned
