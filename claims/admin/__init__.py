"""Moderation in the Django admin, one module per responsibility.

- moderation: every claim, and the queue of pending ones, decided through admin actions
- disputes: impersonation reports on claimed records
- split_requests: works a claimant flagged as not theirs
- audit_log: the moderation events, read-only
- researchers: the researcher page, registered here with the merge action and graph's count
- same_person: the name resolver's "possibly the same person" queue, and its links' reasons
- decisions: the reason page and outcome messages the actions share

Importing the package registers every admin (Django's autodiscover imports claims.admin).
"""

from __future__ import annotations

from .audit_log import ModerationEventAdmin
from .decisions import REASON_TEMPLATE, reason_step
from .disputes import ReportAdmin
from .moderation import CheckInline, ClaimAdmin, ContestedFilter, PendingClaimAdmin, VouchInline
from .researchers import ModeratedResearcherAdmin, merge_researchers
from .same_person import NameLinkAdmin, SamePersonCandidateAdmin
from .split_requests import SplitRequestAdmin

__all__ = [
    "REASON_TEMPLATE",
    "CheckInline",
    "ClaimAdmin",
    "ContestedFilter",
    "ModeratedResearcherAdmin",
    "ModerationEventAdmin",
    "NameLinkAdmin",
    "PendingClaimAdmin",
    "ReportAdmin",
    "SamePersonCandidateAdmin",
    "SplitRequestAdmin",
    "VouchInline",
    "merge_researchers",
    "reason_step",
]
