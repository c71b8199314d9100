from __future__ import annotations

app_name = "claims"

# Claim flow, account page, disputes, vouches, profile editing: see claims/views.py.
urlpatterns: list = []
