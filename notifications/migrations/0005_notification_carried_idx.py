"""The notifications a claimed, unfinished daily digest carries (notifications.services.digest
reads and marks them by their delivery). Built concurrently: the notifications table is large
and keeps being written while this runs."""

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("notifications", "0004_digest_delivery_category"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="notification",
            index=models.Index(
                condition=models.Q(("digest_delivery__isnull", False), ("emailed_at__isnull", True)),
                fields=["digest_delivery"],
                name="notification_carried_idx",
            ),
        ),
    ]
