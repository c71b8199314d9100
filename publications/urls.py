from __future__ import annotations

app_name = "publications"

urlpatterns: list = []
