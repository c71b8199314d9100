"""The inbox, conversations, invitations, blocks and the collaboration account pages.

Mounted at the site root by bzpeer.urls, so every path carries its own prefix.
"""

from __future__ import annotations

from django.urls import path

from . import views

app_name = "collaboration"

urlpatterns = [
    path("inbox/", views.inbox, name="inbox"),
    path("inbox/badge/", views.badge, name="inbox-badge"),
    path("inbox/invite/<slug:slug>/", views.invite, name="invite"),
    path("inbox/invite/<slug:slug>/anchors/", views.invite_anchors, name="invite-anchors"),
    path("inbox/invitations/<int:pk>/", views.invitation_detail, name="invitation-detail"),
    path("inbox/invitations/<int:pk>/accept/", views.invitation_accept, name="invitation-accept"),
    path(
        "inbox/invitations/<int:pk>/decline/",
        views.invitation_decline,
        name="invitation-decline",
    ),
    path(
        "inbox/invitations/<int:pk>/withdraw/",
        views.invitation_withdraw,
        name="invitation-withdraw",
    ),
    path("inbox/invitations/<int:pk>/report/", views.invitation_report, name="invitation-report"),
    path("inbox/conversations/<int:pk>/", views.conversation, name="conversation"),
    path("inbox/conversations/<int:pk>/send/", views.message_send, name="message-send"),
    path("inbox/conversations/<int:pk>/mute/", views.conversation_mute, name="conversation-mute"),
    path("inbox/messages/<int:pk>/delete/", views.message_delete, name="message-delete"),
    path("inbox/messages/<int:pk>/report/", views.message_report, name="message-report"),
    path("inbox/blocks/<slug:slug>/", views.block, name="block"),
    path("inbox/blocks/<slug:slug>/remove/", views.unblock, name="unblock"),
    path("account/collaboration/", views.collaboration_settings, name="settings"),
    path("account/delete/", views.account_delete, name="account-delete"),
    path("account/export/", views.account_export, name="account-export"),
    path(
        "account/export/<str:token>/",
        views.account_export_download,
        name="account-export-download",
    ),
]
