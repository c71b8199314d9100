"""DigestDelivery now belongs to the notifications app (its migration 0003 adopted the table,
feed_digestdelivery, which keeps its name and rows). Django's state only: nothing is dropped."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("feed", "0003_work_arrival_index"),
        ("notifications", "0003_digest_delivery_moved_from_feed"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="DigestDelivery")],
            database_operations=[],
        ),
    ]
