"""API routes of collaboration, mounted under /api/v1/ (namespace "api")."""

from __future__ import annotations

from django.urls import path

from . import api

urlpatterns = [
    path("invitations/", api.InvitationListCreateView.as_view(), name="invitation-list"),
    path(
        "invitations/<int:pk>/accept/",
        api.InvitationAcceptView.as_view(),
        name="invitation-accept",
    ),
    path(
        "invitations/<int:pk>/decline/",
        api.InvitationDeclineView.as_view(),
        name="invitation-decline",
    ),
    path(
        "invitations/<int:pk>/withdraw/",
        api.InvitationWithdrawView.as_view(),
        name="invitation-withdraw",
    ),
    path(
        "invitations/<int:pk>/report/",
        api.InvitationReportView.as_view(),
        name="invitation-report",
    ),
    path("conversations/", api.ConversationListView.as_view(), name="conversation-list"),
    path(
        "conversations/<int:pk>/messages/",
        api.ConversationMessagesView.as_view(),
        name="conversation-messages",
    ),
    path(
        "conversations/<int:pk>/read/",
        api.ConversationReadView.as_view(),
        name="conversation-read",
    ),
    path("messages/<int:pk>/report/", api.MessageReportView.as_view(), name="message-report"),
    path("blocks/", api.BlockCreateView.as_view(), name="block-create"),
    path("blocks/<slug:slug>/", api.BlockDeleteView.as_view(), name="block-delete"),
]
