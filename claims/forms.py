"""Forms of the claim flow, disputes, profile editing and moderation (admin intermediate pages)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.validators import URLValidator

from researchers.models import Researcher

from .checks import email_domain_candidates

MAX_EVIDENCE_LINKS = 5
MAX_PROFILE_LINKS = 10
_url = URLValidator(schemes=["http", "https"])


def _lines(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


class ClaimForm(forms.Form):
    claimant_name = forms.CharField(label="Your name as it appears on your papers", max_length=200)
    statement = forms.CharField(
        label="Why is this record yours?",
        widget=forms.Textarea(attrs={"rows": 4}),
        min_length=20,
        max_length=2000,
        help_text="A few sentences: where you worked, what you published. Moderators read this.",
    )
    evidence_links = forms.CharField(
        label="Evidence links (optional)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=f"One URL per line, up to {MAX_EVIDENCE_LINKS}: a lab page, a staff directory, a CV.",
    )
    presented_email = forms.ChoiceField(
        label="Verified email to present",
        widget=forms.RadioSelect,
        help_text="An address at one of the record's institutions can approve the claim at once.",
    )

    def __init__(
        self,
        *args: Any,
        verified_emails: list[str],
        institution_domains: set[str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields["presented_email"].choices = [(email, email) for email in verified_emails]
        domains = institution_domains or set()
        preferred = next(
            (e for e in verified_emails if set(email_domain_candidates(e)) & domains),
            verified_emails[0] if verified_emails else None,
        )
        if preferred:
            self.fields["presented_email"].initial = preferred

    def clean_evidence_links(self) -> list[str]:
        links = _lines(self.cleaned_data.get("evidence_links", ""))
        if len(links) > MAX_EVIDENCE_LINKS:
            raise forms.ValidationError(f"Give at most {MAX_EVIDENCE_LINKS} links.")
        for link in links:
            try:
                _url(link)
            except forms.ValidationError as error:
                raise forms.ValidationError(f"{link} is not a web address.") from error
        return links


class ReportForm(forms.Form):
    reason = forms.CharField(
        label="Why do you think this profile is an impersonation?",
        widget=forms.Textarea(attrs={"rows": 4}),
        min_length=10,
        max_length=2000,
    )


class VouchForm(forms.Form):
    note = forms.CharField(
        label="Note for the moderators (optional)", max_length=300, required=False
    )


class ProfileEditForm(forms.Form):
    tagline = forms.CharField(max_length=300, required=False)
    homepage = forms.URLField(max_length=500, required=False, assume_scheme="https")
    links = forms.CharField(
        label="Links",
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=f"One per line as 'Label | https://...', up to {MAX_PROFILE_LINKS}.",
    )
    open_to_collaborate = forms.BooleanField(label="Open to collaborate", required=False)

    @classmethod
    def for_researcher(cls, researcher: Researcher, data: Any = None) -> ProfileEditForm:
        initial = {
            "tagline": researcher.tagline,
            "homepage": researcher.homepage,
            "links": "\n".join(
                f"{link.get('label', '')} | {link.get('url', '')}"
                for link in researcher.links or []
            ),
            "open_to_collaborate": researcher.open_to_collaborate,
        }
        return cls(data=data, initial=initial)

    def clean_links(self) -> list[dict[str, str]]:
        links = []
        for line in _lines(self.cleaned_data.get("links", "")):
            label, separator, url = line.rpartition("|")
            if not separator:
                label, url = "", line
            label, url = label.strip(), url.strip()
            try:
                _url(url)
            except forms.ValidationError as error:
                raise forms.ValidationError(f"{url} is not a web address.") from error
            links.append({"label": label or url, "url": url})
        if len(links) > MAX_PROFILE_LINKS:
            raise forms.ValidationError(f"Give at most {MAX_PROFILE_LINKS} links.")
        return links


class SplitRequestForm(forms.Form):
    note = forms.CharField(max_length=500, required=False)


# --- moderation (admin intermediate pages) ---------------------------------------------------


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "cols": 60}),
        max_length=2000,
        help_text="The claimant sees this.",
    )


class MergeForm(forms.Form):
    survivor = forms.TypedChoiceField(coerce=int, widget=forms.RadioSelect, label="Keep")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=2000)

    def __init__(self, *args: Any, researchers: list[Researcher], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["survivor"].choices = [
            (r.pk, f"{r.display_name} ({r.slug}, {r.works_count} works)") for r in researchers
        ]
