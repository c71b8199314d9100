from django.db import migrations


class Migration(migrations.Migration):
    """Room in each page of the edges table for the drain's in-place updates (HOT); the
    rebuild creates its table with the same setting (graph.services.EDGES_FILLFACTOR)."""

    dependencies = [("graph", "0002_exact_weight_pending_bylines")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE graph_coauthoredge SET (fillfactor = 85)",
            "ALTER TABLE graph_coauthoredge RESET (fillfactor)",
        )
    ]
