import django.db.models.functions.comparison
from django.db import migrations, models


class Migration(migrations.Migration):
    """Newest first by the best date known (issue 24, item 1): a stored generated column,
    the date or a year-only work at its year's first day, and the listings' index on it in place
    of the one on publication_date. PostgreSQL fills the column for every existing work in the
    ALTER TABLE itself (one set-based pass, no row-by-row backfill), and keeps it on every
    write, the writer's COPY loads included."""

    dependencies = [
        ("publications", "0015_citations"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="work",
            options={
                "ordering": [
                    models.OrderBy(models.F("sort_date"), descending=True, nulls_last=True),
                    "-id",
                ]
            },
        ),
        migrations.RemoveIndex(
            model_name="work",
            name="work_newest_idx",
        ),
        migrations.AddField(
            model_name="work",
            name="sort_date",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.db.models.functions.comparison.Coalesce(
                    "publication_date",
                    models.Func(
                        django.db.models.functions.comparison.NullIf(
                            "publication_year", models.Value(0)
                        ),
                        models.Value(1),
                        models.Value(1),
                        function="make_date",
                        output_field=models.DateField(),
                    ),
                ),
                output_field=models.DateField(null=True),
            ),
        ),
        migrations.AddIndex(
            model_name="work",
            index=models.Index(
                models.OrderBy(models.F("sort_date"), descending=True, nulls_last=True),
                models.OrderBy(models.F("id"), descending=True),
                name="work_newest_idx",
            ),
        ),
    ]
