"""Reads for direct collaboration, shared by the pages, the API, the admin and the services.

- access:      who may invite whom (one rule, the service raises what it returns), blocks,
               suspensions, coauthors
- panel:       the profile's "Direct collaboration" panel; a user's settings
- inbox:       the inbox's conversations and the header badge
- invitations: invitations received and sent, one invitation
- threads:     one conversation's messages; one message
- export:      everything held about one user ("download my data"); their latest export

Every lookup by a user-supplied id answers 404 for anyone who is not a party to it. The pages'
selectors run a fixed number of queries whatever the counts.
"""

from __future__ import annotations

from .access import (
    CLAIM_FIRST,
    SUSPENDED,
    UNAVAILABLE,
    blocked_between,
    invite_refusal,
    invite_refusals,
    verified_record_of,
)
from .export import account_data, account_export_latest
from .inbox import (
    ConversationSummary,
    Inbox,
    badge_cache_key,
    conversations_for,
    inbox_badge_count,
    inbox_for,
    unread_badge_count,
)
from .invitations import (
    DELETED_NAME,
    InvitationSummary,
    effective_status,
    invitation_for,
    invitations_for,
)
from .panel import (
    CollaborationPanel,
    anchor_search,
    collaboration_panel_for,
    collaboration_settings_for,
)
from .threads import ConversationThread, MessageView, conversation_for, message_for

__all__ = [
    "account_data",
    "account_export_latest",
    "CLAIM_FIRST",
    "DELETED_NAME",
    "SUSPENDED",
    "UNAVAILABLE",
    "CollaborationPanel",
    "ConversationSummary",
    "ConversationThread",
    "Inbox",
    "InvitationSummary",
    "MessageView",
    "anchor_search",
    "badge_cache_key",
    "blocked_between",
    "collaboration_panel_for",
    "collaboration_settings_for",
    "conversation_for",
    "conversations_for",
    "effective_status",
    "inbox_badge_count",
    "inbox_for",
    "invitation_for",
    "invitations_for",
    "invite_refusal",
    "invite_refusals",
    "message_for",
    "unread_badge_count",
    "verified_record_of",
]
