from __future__ import annotations

from django.urls import path

from . import views

app_name = "graph"

urlpatterns = [
    path("researchers/<slug:slug>/graph-panel/", views.slice_panel, name="slice-panel"),
]
