import django.contrib.postgres.fields
import django.db.models.deletion
import django.db.models.functions.datetime
from django.db import migrations, models


class Migration(migrations.Migration):
    """Related works (issue 25, item 4): the ranked lists, the citation degrees their score is
    normalised by, and the works whose citations changed since (the drain's queue)."""

    dependencies = [
        ("publications", "0016_work_sort_date"),
    ]

    operations = [
        migrations.CreateModel(
            name="CitationDegree",
            fields=[
                (
                    "work",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="publications.work",
                    ),
                ),
                ("cited_by", models.PositiveIntegerField()),
                ("references", models.PositiveIntegerField()),
            ],
        ),
        migrations.CreateModel(
            name="PendingRelatedWorks",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "work_ids",
                    django.contrib.postgres.fields.ArrayField(
                        base_field=models.BigIntegerField(), size=None
                    ),
                ),
                (
                    "created_at",
                    models.DateTimeField(db_default=django.db.models.functions.datetime.Now()),
                ),
            ],
        ),
        migrations.CreateModel(
            name="RelatedWork",
            fields=[
                (
                    "pk",
                    models.CompositePrimaryKey(
                        "work",
                        "related",
                        blank=True,
                        editable=False,
                        primary_key=True,
                        serialize=False,
                    ),
                ),
                ("cocitations", models.PositiveIntegerField()),
                ("shared_references", models.PositiveIntegerField()),
                ("score", models.FloatField()),
                ("rank", models.PositiveSmallIntegerField()),
                (
                    "related",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="publications.work",
                    ),
                ),
                (
                    "work",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="publications.work",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["related"], name="related_work_related_idx")
                ],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("work", models.F("related")), _negated=True),
                        name="related_work_not_self",
                    )
                ],
            },
        ),
    ]
