from __future__ import annotations

# API routes of claims, mounted under /api/v1/.
urlpatterns: list = []
