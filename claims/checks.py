"""The automatic checks of a claim, as pure functions of plain values (no database).

claims.selectors.claim_check_results gathers the inputs and calls these;
claims.services.decisions.claim_checks_run stores the results and decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from nameparser import HumanName
from rapidfuzz import fuzz

from researchers.names import normalize_name

from .models import CheckKind, CheckOutcome

# A name score at or above this counts as a match. Name evidence alone never approves a claim
# (namesakes are common); moderators see the score.
NAME_MATCH_THRESHOLD = 90.0


@dataclass(frozen=True)
class CheckResult:
    kind: str
    outcome: str
    detail: str
    score: float | None = None

    @property
    def passed(self) -> bool:
        return self.outcome == CheckOutcome.PASSED


def normalize_orcid(value: str | None) -> str:
    """The bare iD, upper-case X: "https://orcid.org/0000-0002-7319-219x" -> "0000-...-219X"."""
    value = (value or "").strip()
    for prefix in ("https://orcid.org/", "http://orcid.org/", "https://sandbox.orcid.org/"):
        if value.lower().startswith(prefix):
            value = value[len(prefix) :]
    return value.upper()


def orcid_check(*, connected_orcids: Iterable[str], record_orcid: str | None) -> CheckResult:
    """Passes when an ORCID iD the user connected by signing in to ORCID is the record's."""
    connected = {normalize_orcid(orcid) for orcid in connected_orcids if orcid}
    if not record_orcid:
        return CheckResult(
            CheckKind.ORCID, CheckOutcome.NOT_APPLICABLE, "The record has no ORCID iD."
        )
    if not connected:
        return CheckResult(
            CheckKind.ORCID, CheckOutcome.FAILED, "No ORCID iD is connected to the account."
        )
    if normalize_orcid(record_orcid) in connected:
        return CheckResult(
            CheckKind.ORCID,
            CheckOutcome.PASSED,
            f"The connected ORCID iD {normalize_orcid(record_orcid)} is the record's.",
        )
    return CheckResult(
        CheckKind.ORCID,
        CheckOutcome.FAILED,
        f"The connected ORCID iD ({', '.join(sorted(connected))}) is not the record's.",
    )


def email_domain_candidates(email: str) -> list[str]:
    """The email's domain and its parent domains down to two labels, most specific first:
    a@cs.mit.edu -> ["cs.mit.edu", "mit.edu"]. A bare top-level domain never matches."""
    domain = email.rpartition("@")[2].strip().lower().rstrip(".")
    labels = [label for label in domain.split(".") if label]
    return [".".join(labels[i:]) for i in range(len(labels) - 1)]


def institution_email_check(
    *, email: str, email_verified: bool, institution_domains: Mapping[str, str]
) -> CheckResult:
    """Passes when the presented, verified email's domain (or a parent domain of it) is an
    email domain of one of the record's institutions. institution_domains: domain -> name."""
    if not email:
        return CheckResult(
            CheckKind.INSTITUTION_EMAIL, CheckOutcome.FAILED, "No email was presented."
        )
    if not email_verified:
        return CheckResult(
            CheckKind.INSTITUTION_EMAIL,
            CheckOutcome.FAILED,
            f"{email} is not a verified address of the account.",
        )
    if not institution_domains:
        return CheckResult(
            CheckKind.INSTITUTION_EMAIL,
            CheckOutcome.NOT_APPLICABLE,
            "None of the record's institutions has a known email domain.",
        )
    known = {
        domain.lower().strip().lstrip("@"): name for domain, name in institution_domains.items()
    }
    for candidate in email_domain_candidates(email):
        if candidate in known:
            return CheckResult(
                CheckKind.INSTITUTION_EMAIL,
                CheckOutcome.PASSED,
                f"{email} is at {candidate}, an email domain of {known[candidate]}.",
            )
    return CheckResult(
        CheckKind.INSTITUTION_EMAIL,
        CheckOutcome.FAILED,
        f"{email} is not at a domain of the record's institutions.",
    )


def _name_parts(name: str) -> tuple[str, str]:
    """(first, last) of a name, normalized: accents folded, lower case."""
    parsed = HumanName(name)
    return normalize_name(parsed.first), normalize_name(parsed.last)


def name_similarity(claimant: str, record: str) -> float:
    """0-100. Word order does not matter ("Zhong Zhizhen" = "Zhizhen Zhong"); an initial
    for a first name ("Z. Zhong") scores 85, below the match threshold."""
    left, right = normalize_name(claimant), normalize_name(record)
    if not left or not right:
        return 0.0
    score = float(fuzz.token_sort_ratio(left, right))
    (first_a, last_a), (first_b, last_b) = _name_parts(claimant), _name_parts(record)
    if last_a and last_a == last_b and first_a and first_b:
        if first_a == first_b:
            score = max(score, 95.0)
        elif len(first_a) == 1 or len(first_b) == 1:
            if first_a[0] == first_b[0]:
                score = max(score, 85.0)
    return round(score, 1)


def name_check(*, claimant_names: Iterable[str], record_names: Iterable[str]) -> CheckResult:
    """The best similarity between any name of the claimant and any name of the record."""
    claimant_names = [name for name in claimant_names if name and name.strip()]
    record_names = [name for name in record_names if name and name.strip()]
    if not claimant_names:
        return CheckResult(CheckKind.NAME, CheckOutcome.FAILED, "The claimant gave no name.", 0.0)
    best, best_pair = 0.0, ("", "")
    for claimant in claimant_names:
        for record in record_names:
            score = name_similarity(claimant, record)
            if score > best:
                best, best_pair = score, (claimant, record)
    if best >= NAME_MATCH_THRESHOLD:
        return CheckResult(
            CheckKind.NAME,
            CheckOutcome.PASSED,
            f'"{best_pair[0]}" matches the record name "{best_pair[1]}" ({best:.0f}/100).',
            best,
        )
    detail = (
        f'Closest: "{best_pair[0]}" and "{best_pair[1]}" ({best:.0f}/100).'
        if best
        else "No name of the claimant resembles the record's names."
    )
    return CheckResult(CheckKind.NAME, CheckOutcome.FAILED, detail, best)


def vouches_check(*, vouch_count: int, needed: int) -> CheckResult:
    if vouch_count >= needed:
        return CheckResult(
            CheckKind.VOUCHES,
            CheckOutcome.PASSED,
            f"{vouch_count} verified coauthors vouched (need {needed}).",
            float(vouch_count),
        )
    return CheckResult(
        CheckKind.VOUCHES,
        CheckOutcome.FAILED,
        f"{vouch_count} of {needed} coauthor vouches so far.",
        float(vouch_count),
    )
