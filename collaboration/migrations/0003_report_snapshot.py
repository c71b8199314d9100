"""Reports keep a copy of what was reported (the text and its author's label), so that an
author deleting the message or their account afterwards does not erase it from the queue.
Reports filed before copy what is left of their item now."""

from django.db import migrations, models


def _label(name: str, user_id: int | None) -> str:
    if user_id is None:
        return "Deleted researcher"
    return f"{name or 'A researcher'} (user #{user_id})"


def copy_reported_items(apps, schema_editor):
    report_model = apps.get_model("collaboration", "CollaborationReport")
    participant_model = apps.get_model("collaboration", "ConversationParticipant")
    reports = report_model.objects.select_related(
        "message", "invitation__sender_researcher"
    ).filter(reported_text="")
    for report in reports.iterator():
        if report.message is not None:
            side = (
                participant_model.objects.filter(
                    conversation_id=report.message.conversation_id,
                    user_id=report.message.author_id,
                )
                .select_related("researcher")
                .first()
            )
            name = side.researcher.display_name if side and side.researcher else ""
            report.reported_text = report.message.body
            report.reported_author_label = _label(name, report.message.author_id)
        elif report.invitation is not None:
            record = report.invitation.sender_researcher
            report.reported_text = report.invitation.purpose
            report.reported_author_label = _label(
                record.display_name if record else "", report.invitation.sender_id
            )
        else:
            continue
        report.save(update_fields=["reported_text", "reported_author_label"])


class Migration(migrations.Migration):
    dependencies = [
        ("collaboration", "0002_inbox_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="collaborationreport",
            name="reported_author_label",
            field=models.CharField(blank=True, max_length=300),
        ),
        migrations.AddField(
            model_name="collaborationreport",
            name="reported_text",
            field=models.TextField(blank=True, max_length=10000),
        ),
        migrations.RunPython(copy_reported_items, migrations.RunPython.noop),
    ]
