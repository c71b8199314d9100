"""Writes for direct collaboration. Views, the API, the admin and the tasks all call these.

One module per responsibility:

- invitations:   sending (who may, purpose, anchors, one pending per pair), accept (opens the
                 conversation), decline, withdraw, expiry
- quotas:        invitations per 24 hours, counted from the database under the sender's lock
- conversations: sending and deleting messages, marking read, muting
- blocks:        blocking and unblocking a researcher
- moderation:    reports of a message or invitation; staff's hide, suspend, restore, dismiss
- flags:         five distinct people blocking or reporting a user flag them to staff
- account:       collaboration settings; deleting one's account
- export:        "download my data": the JSON export, its task and its expiring link
- emails:        the "unread messages" emails (10 minutes unread, one per hour)
- notify:        the notifications collaboration sends
- badge:         forgetting the header badge's cached count when what it counts changes

Refusals are bzpeer.errors ServiceErrors (InvalidRequest 400, Forbidden 403, Conflict 409,
RateLimited 429); what the user may not see at all is an Http404. Who may invite whom is one
rule in collaboration.selectors.access, shared with the profile panel.
"""

from __future__ import annotations

from collaboration.selectors.access import CLAIM_FIRST, SUSPENDED, UNAVAILABLE

from .account import account_delete, collaboration_settings_update
from .badge import inbox_badge_forget
from .blocks import block_create, block_delete
from .conversations import (
    conversation_mark_read,
    conversation_mute,
    message_delete,
    message_send,
)
from .emails import message_email_send, message_emails_send_due
from .export import (
    account_export_build,
    account_export_expires_at,
    account_export_for_download,
    account_export_link_token,
    account_export_request,
    account_exports_delete_expired,
    account_exports_owed_build,
)
from .flags import user_flag_if_needed
from .invitations import (
    invitation_accept,
    invitation_decline,
    invitation_send,
    invitation_withdraw,
    invitations_expire,
)
from .moderation import (
    message_hide,
    messaging_restore,
    messaging_suspend,
    report_create,
    report_dismiss,
)

__all__ = [
    "CLAIM_FIRST",
    "SUSPENDED",
    "UNAVAILABLE",
    "account_delete",
    "account_export_build",
    "account_export_expires_at",
    "account_export_for_download",
    "account_export_link_token",
    "account_export_request",
    "account_exports_delete_expired",
    "account_exports_owed_build",
    "block_create",
    "block_delete",
    "collaboration_settings_update",
    "conversation_mark_read",
    "conversation_mute",
    "inbox_badge_forget",
    "invitation_accept",
    "invitation_decline",
    "invitation_send",
    "invitation_withdraw",
    "invitations_expire",
    "message_delete",
    "message_email_send",
    "message_emails_send_due",
    "message_hide",
    "message_send",
    "messaging_restore",
    "messaging_suspend",
    "report_create",
    "report_dismiss",
    "user_flag_if_needed",
]
