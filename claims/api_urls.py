"""API routes of claims, mounted under /api/v1/ (namespace "api")."""

from __future__ import annotations

from django.urls import path

from .api import ClaimDetailView, ClaimListCreateView, ClaimWithdrawView

urlpatterns = [
    path("claims/", ClaimListCreateView.as_view(), name="claim-list"),
    path("claims/<int:pk>/", ClaimDetailView.as_view(), name="claim-detail"),
    path("claims/<int:pk>/withdraw/", ClaimWithdrawView.as_view(), name="claim-withdraw"),
]
