"""Claim flow, account page, disputes, vouches, profile editing and the trust explanation.

Mounted at the site root by bzpeer.urls, so every path carries its own prefix.
"""

from __future__ import annotations

from django.urls import path

from . import views

app_name = "claims"

urlpatterns = [
    path("account/", views.account, name="account"),
    path("account/time-zone/", views.account_time_zone, name="account-time-zone"),
    path("account/notifications/read/", views.notifications_read, name="notifications-read"),
    path("claims/<int:pk>/withdraw/", views.claim_withdraw, name="claim-withdraw"),
    path("claims/<int:pk>/vouch/", views.vouch, name="vouch"),
    path("claims/researchers/<slug:slug>/claim/", views.claim_start, name="claim-start"),
    path("claims/researchers/<slug:slug>/report/", views.report, name="report"),
    path("claims/researchers/<slug:slug>/edit/", views.profile_edit, name="profile-edit"),
    path(
        "claims/researchers/<slug:slug>/works/<int:work_id>/not-mine/",
        views.work_not_mine,
        name="work-not-mine",
    ),
    path("claims/researchers/<slug:slug>/trust/", views.trust_explain, name="trust-explain"),
    path(
        "claims/researchers/<slug:slug>/cv/<int:entry_id>/visibility/",
        views.cv_entry_visibility,
        name="cv-entry-visibility",
    ),
    path(
        "claims/researchers/<slug:slug>/orcid-refresh/",
        views.orcid_refresh,
        name="orcid-refresh",
    ),
]
