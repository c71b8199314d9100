"""Forms of the collaboration pages: the invitation (profile panel), a message, a report, the
collaboration settings and the account deletion.

They check shape only (lengths, choices); every rule about who may do what is the services'.
"""

from __future__ import annotations

from typing import Any

from django import forms

from .models import (
    MESSAGE_MAX_LENGTH,
    PURPOSE_MAX_LENGTH,
    PURPOSE_MIN_LENGTH,
    InvitationKind,
    WhoMayInvite,
)

REPORT_REASON_MAX_LENGTH = 2_000


def _is_id(value: object) -> bool:
    return str(value).isdigit() and len(str(value)) < 19


class InvitationForm(forms.Form):
    kind = forms.ChoiceField(label="What kind of collaboration", choices=InvitationKind.choices)
    purpose = forms.CharField(
        label="Purpose",
        min_length=PURPOSE_MIN_LENGTH,
        max_length=PURPOSE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5}),
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
        # Browsers send textarea line breaks as CRLF; count them as the person sees them.
        return self.cleaned_data["purpose"].replace("\r\n", "\n").strip()


class MessageForm(forms.Form):
    body = forms.CharField(
        label="Message",
        max_length=MESSAGE_MAX_LENGTH,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 4}),
    )

    def clean_body(self) -> str:
        return self.cleaned_data["body"].replace("\r\n", "\n")


class ReportForm(forms.Form):
    reason = forms.CharField(
        label="What is wrong with it?",
        max_length=REPORT_REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


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
