"""The inbox's invitation lists read through indexes in their order (newest first, pending
ones apart), and the single-column foreign-key indexes that composite ones already cover
dropped (one of them led the planner to sort a whole conversation to show its last 200)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("collaboration", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="invitation",
            name="invitation_sender_idx",
        ),
        migrations.RemoveIndex(
            model_name="invitation",
            name="invitation_recipient_idx",
        ),
        migrations.AlterField(
            model_name="conversationparticipant",
            name="conversation",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="participants",
                to="collaboration.conversation",
            ),
        ),
        migrations.AlterField(
            model_name="invitation",
            name="recipient",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="invitations_received",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AlterField(
            model_name="invitation",
            name="sender",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="invitations_sent",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AlterField(
            model_name="message",
            name="conversation",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="messages",
                to="collaboration.conversation",
            ),
        ),
        migrations.AddIndex(
            model_name="invitation",
            index=models.Index(fields=["sender", "-created_at", "-id"], name="invitation_sent_idx"),
        ),
        migrations.AddIndex(
            model_name="invitation",
            index=models.Index(
                fields=["recipient", "-created_at", "-id"], name="invitation_received_idx"
            ),
        ),
        migrations.AddIndex(
            model_name="invitation",
            index=models.Index(
                condition=models.Q(("status", "pending")),
                fields=["sender", "-created_at", "-id"],
                name="invitation_sent_pending_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="invitation",
            index=models.Index(
                condition=models.Q(("status", "pending")),
                fields=["recipient", "-created_at", "-id"],
                name="invitation_recv_pending_idx",
            ),
        ),
    ]
