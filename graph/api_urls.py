from __future__ import annotations

# API routes of the collaborator graph, mounted under /api/v1/ (graph slice, COI check).
urlpatterns: list = []
