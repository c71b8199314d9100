"""The feed (issue 14): a researcher follow can be muted in the feed without unfollowing, and
institutions count their followers (feed.models.InstitutionFollow) as researchers do.

Both columns have a database default: follow_create and the importer's writer insert rows with
their own column lists.
"""

from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("researchers", "0012_researcher_name_cited"),
    ]

    operations = [
        migrations.AddField(
            model_name="follow",
            name="muted",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddField(
            model_name="institution",
            name="followers_count",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
    ]
