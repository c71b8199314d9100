from __future__ import annotations

import pytest
from django.core.management import call_command

from publications.models import ImportRun


@pytest.fixture
def run_import():
    """Run import_openalex --sync on paths; returns the ImportRun it created."""

    def run(*paths, **options) -> ImportRun:
        before = ImportRun.objects.order_by("-id").values_list("id", flat=True).first() or 0
        call_command("import_openalex", *[str(p) for p in paths], sync=True, no_progress=True, **options)
        return ImportRun.objects.filter(id__gt=before).latest("id")

    return run
