from __future__ import annotations

app_name = "graph"

# Pages of the collaborator graph (explorer, conflict-of-interest check): see graph/views.py.
urlpatterns: list = []
