"""Forms of the collaboration pages: the invitation (profile panel), a message, a report, the
collaboration settings and the account deletion.

They check shape only (lengths, choices); every rule about who may do what is the services'.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    works = forms.TypedMultipleChoiceField(
        label="Anchor works (optional)",
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    topics = forms.TypedMultipleChoiceField(
        label="Anchor topics (optional)",
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(
        self,
        *args: Any,
        anchor_works: Sequence[tuple[int, str]] = (),
        anchor_topics: Sequence[tuple[int, str]] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        # Only the anchors the panel offered can be chosen: a forged id is a form error, not
        # an anchor to someone else's work.
        self.fields["works"].choices = list(anchor_works)
        self.fields["topics"].choices = list(anchor_topics)

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
