# Notification comes from the claims app with its rows: the table is renamed, not copied
# (claims' 0005 removed the model from claims' state). Existing rows are claims' notifications
# whose email went out (or was to go out) at once.

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('claims', '0005_notification_moved_to_notifications'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    sql=[
                        'ALTER TABLE claims_notification RENAME TO notifications_notification',
                        'ALTER SEQUENCE IF EXISTS claims_notification_id_seq '
                        'RENAME TO notifications_notification_id_seq',
                    ],
                    reverse_sql=[
                        'ALTER SEQUENCE IF EXISTS notifications_notification_id_seq '
                        'RENAME TO claims_notification_id_seq',
                        'ALTER TABLE notifications_notification RENAME TO claims_notification',
                    ],
                ),
            ],
            state_operations=[
                migrations.CreateModel(
                    name='Notification',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(max_length=30)),
                        ('subject', models.CharField(max_length=200)),
                        ('message', models.TextField()),
                        ('url', models.CharField(blank=True, max_length=500)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('read_at', models.DateTimeField(blank=True, null=True)),
                        ('emailed_at', models.DateTimeField(blank=True, null=True)),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notifications', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'ordering': ['-created_at', '-id'],
                        'indexes': [models.Index(fields=['user', '-created_at'], name='notification_user_idx')],
                    },
                ),
            ],
        ),
        migrations.AddField(
            model_name='notification',
            name='category',
            field=models.CharField(choices=[('claims', 'Claims, reports and record changes'), ('invitations', 'Collaboration invitations'), ('messages', 'Messages in your conversations')], default='claims', max_length=30),
            preserve_default=False,
        ),
        # Rows from before the move were emailed at once; new rows say how explicitly.
        migrations.AddField(
            model_name='notification',
            name='email_delivery',
            field=models.CharField(default='immediately', max_length=20),
        ),
        migrations.AlterField(
            model_name='notification',
            name='email_delivery',
            field=models.CharField(default='off', max_length=20),
        ),
        migrations.AddIndex(
            model_name='notification',
            index=models.Index(condition=models.Q(('email_delivery', 'daily'), ('emailed_at__isnull', True)), fields=['user'], name='notification_digest_due_idx'),
        ),
        migrations.CreateModel(
            name='NotificationPreference',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('category', models.CharField(max_length=30)),
                ('delivery', models.CharField(max_length=20)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notification_preferences', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('user', 'category'), name='notification_preference_unique')],
            },
        ),
    ]
