# The Notification model moved to the notifications app. Only the migration state changes here;
# notifications' 0001_initial renames the table (claims_notification -> notifications_notification)
# and takes the model over, rows and all.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('claims', '0004_collaboration_audit_actions'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='Notification')],
            database_operations=[],
        ),
    ]
