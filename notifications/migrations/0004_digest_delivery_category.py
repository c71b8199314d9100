"""One table of digest deliveries for both digests (issue 23, item 3): a delivery names its
digest (`category`: "digest" for the feed's, the rows already there; "daily-digest" for the
daily digest of notifications), the unique constraint and the indexes include it, the count is
of items (works or notifications), and a notification records the daily digest that carries it.

Adding the columns rewrites nothing (a constant default, then none; a nullable column). The
notification's partial index comes in the next migration, built concurrently."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0003_digest_delivery_moved_from_feed"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="digestdelivery", name="digest_delivery_once"),
        migrations.RemoveIndex(model_name="digestdelivery", name="digest_delivery_user_end_idx"),
        migrations.RemoveIndex(model_name="digestdelivery", name="digest_delivery_pending_idx"),
        migrations.RenameField(
            model_name="digestdelivery", old_name="works_count", new_name="items_count"
        ),
        # Every row there is was a feed digest; new rows always name their digest.
        migrations.AddField(
            model_name="digestdelivery",
            name="category",
            field=models.CharField(db_default="digest", max_length=30),
        ),
        migrations.AlterField(
            model_name="digestdelivery",
            name="category",
            field=models.CharField(max_length=30),
        ),
        migrations.AddField(
            model_name="notification",
            name="digest_delivery",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="notifications.digestdelivery",
            ),
        ),
        migrations.AddIndex(
            model_name="digestdelivery",
            index=models.Index(
                fields=["user", "category", "window_end"], name="digest_delivery_user_end_idx"
            ),
        ),
        migrations.AddIndex(
            model_name="digestdelivery",
            index=models.Index(
                condition=models.Q(("finished_at__isnull", True)),
                fields=["category", "period", "id"],
                name="digest_delivery_pending_idx",
            ),
        ),
        migrations.AddConstraint(
            model_name="digestdelivery",
            constraint=models.UniqueConstraint(
                fields=("user", "category", "period", "period_key"), name="digest_delivery_once"
            ),
        ),
    ]
