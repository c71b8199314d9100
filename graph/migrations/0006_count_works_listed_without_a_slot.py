"""Researchers' figures now count the works their ORCID record lists without a byline slot
(publications.WorkListedBy with no position; graph.services.metrics). Those already imported
are refreshed once here; a database without such rows (a new one) has nothing to do."""

from __future__ import annotations

from django.db import migrations


def listed_owners_refresh(apps, schema_editor):
    from graph.services.metrics import researcher_metrics_refresh

    WorkListedBy = apps.get_model("publications", "WorkListedBy")
    owner_ids = list(
        WorkListedBy.objects.filter(position__isnull=True)
        .values_list("researcher_id", flat=True)
        .distinct()
    )
    researcher_metrics_refresh(researcher_ids=owner_ids)


class Migration(migrations.Migration):
    dependencies = [
        ("graph", "0005_close_collaborators_count"),
        ("publications", "0010_work_listed_by"),
    ]

    operations = [migrations.RunPython(listed_owners_refresh, migrations.RunPython.noop)]
