"""User.email_link_key: the random key one-click unsubscribe links name a person by (issue 28,
item 10). PostgreSQL fills it for the existing accounts, a different value each."""

import uuid

import django.contrib.postgres.functions
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("users", "0003_user_time_zone"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="email_link_key",
            field=models.UUIDField(
                db_default=django.contrib.postgres.functions.RandomUUID(),
                default=uuid.uuid4,
                editable=False,
                unique=True,
            ),
        ),
    ]
