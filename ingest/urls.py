"""The claimant's BibTeX upload, mounted at the site root by bzpeer.urls."""

from __future__ import annotations

from django.urls import path

from . import views

app_name = "ingest"

urlpatterns = [
    path(
        "claims/researchers/<slug:slug>/bibtex/",
        views.bibtex_upload,
        name="bibtex-upload",
    ),
    path(
        "claims/researchers/<slug:slug>/bibtex/confirm/",
        views.bibtex_upload_confirm_view,
        name="bibtex-upload-confirm",
    ),
]
