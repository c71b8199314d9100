"""DigestDelivery moves from the feed app to this one (issue 23, item 3: one digest mechanism,
owned by the lower floor). Django's state only: the table stays feed_digestdelivery with its
rows, indexes and constraint, which feed's migration 0002 created. feed's 0004 drops the model
from feed's state after this one, and the content type row follows the model here (the
admin's permissions and log entries point at it), so nothing is created, copied or lost.

This migration depends on feed's 0002 (the table must exist before this app adopts it); no
code of notifications imports feed.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def content_type_to_notifications(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    moved = ContentType.objects.using(db).filter(app_label="feed", model="digestdelivery")
    if ContentType.objects.using(db).filter(
        app_label="notifications", model="digestdelivery"
    ).exists():
        # Made meanwhile by a post_migrate of this state (not on a normal run): keep that one.
        moved.delete()
    else:
        moved.update(app_label="notifications")


def content_type_to_feed(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    ContentType.objects.using(db).filter(
        app_label="notifications", model="digestdelivery"
    ).update(app_label="feed")


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0002_digest_category"),
        ("feed", "0002_digest_delivery"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="DigestDelivery",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "period",
                            models.CharField(
                                choices=[("daily", "Daily"), ("weekly", "Weekly")], max_length=10
                            ),
                        ),
                        ("period_key", models.CharField(max_length=10)),
                        ("window_start", models.DateTimeField()),
                        ("window_end", models.DateTimeField()),
                        ("created_at", models.DateTimeField()),
                        ("claimed_at", models.DateTimeField(blank=True, null=True)),
                        ("finished_at", models.DateTimeField(blank=True, null=True)),
                        ("emailed", models.BooleanField(db_default=False, default=False)),
                        ("works_count", models.PositiveIntegerField(db_default=0, default=0)),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="digest_deliveries",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "feed_digestdelivery",
                        "indexes": [
                            models.Index(
                                fields=["user", "window_end"], name="digest_delivery_user_end_idx"
                            ),
                            models.Index(
                                condition=models.Q(("finished_at__isnull", True)),
                                fields=["period", "id"],
                                name="digest_delivery_pending_idx",
                            ),
                        ],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("user", "period", "period_key"), name="digest_delivery_once"
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_type_to_notifications, content_type_to_feed),
    ]
