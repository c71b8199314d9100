from __future__ import annotations

from django.urls import path

from . import views

app_name = "graph"

urlpatterns = [
    path("researchers/<slug:slug>/graph-panel/", views.slice_panel, name="slice-panel"),
    path("explore/", views.explorer, name="explorer"),
    path("coi/", views.coi_check, name="coi-check"),
]
