"""The feed (issue 14): a work's arrival time on its authorships and work topics.

The feed lists the newest arrivals (Work.created_at) of everything a user follows. Reading a
followed researcher's newest arrivals from authorships alone needs the arrival on the
authorship row, in an index led by the researcher: (researcher_id, work_created_at, work_id);
likewise (topic_id, work_created_at, work_id) on work topics. The writer COPYs the value with
each row. So that no other insert (the ORM, the admin, tests) can leave it wrong, a trigger
fills it from the work when an insert leaves it empty (its WHEN clause costs the writer's COPY
nothing else), and a trigger on works spreads a changed created_at to both tables (it never
fires on import: the writer's upsert never sets created_at).

Existing rows are filled from their works; on the 1M-work corpus that rewrites the two tables
once.
"""

from __future__ import annotations

from django.db import migrations, models

FORWARD = """
ALTER TABLE publications_authorship ADD COLUMN work_created_at timestamptz;
UPDATE publications_authorship a SET work_created_at = w.created_at
FROM publications_work w WHERE w.id = a.work_id;
ALTER TABLE publications_authorship ALTER COLUMN work_created_at SET NOT NULL;

ALTER TABLE publications_worktopic ADD COLUMN work_created_at timestamptz;
UPDATE publications_worktopic wt SET work_created_at = w.created_at
FROM publications_work w WHERE w.id = wt.work_id;
ALTER TABLE publications_worktopic ALTER COLUMN work_created_at SET NOT NULL;

CREATE FUNCTION publications_fill_work_created_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT w.created_at INTO NEW.work_created_at FROM publications_work w WHERE w.id = NEW.work_id;
    RETURN NEW;
END
$$;
CREATE TRIGGER authorship_fill_work_created_at BEFORE INSERT ON publications_authorship
FOR EACH ROW WHEN (NEW.work_created_at IS NULL)
EXECUTE FUNCTION publications_fill_work_created_at();
CREATE TRIGGER worktopic_fill_work_created_at BEFORE INSERT ON publications_worktopic
FOR EACH ROW WHEN (NEW.work_created_at IS NULL)
EXECUTE FUNCTION publications_fill_work_created_at();

CREATE FUNCTION publications_spread_work_created_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE publications_authorship SET work_created_at = NEW.created_at WHERE work_id = NEW.id;
    UPDATE publications_worktopic SET work_created_at = NEW.created_at WHERE work_id = NEW.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER work_spread_created_at AFTER UPDATE OF created_at ON publications_work
FOR EACH ROW WHEN (OLD.created_at IS DISTINCT FROM NEW.created_at)
EXECUTE FUNCTION publications_spread_work_created_at();

CREATE INDEX authorship_arrival_idx
ON publications_authorship (researcher_id, work_created_at, work_id);
CREATE INDEX work_topic_arrival_idx
ON publications_worktopic (topic_id, work_created_at, work_id);
"""

BACKWARD = """
DROP INDEX work_topic_arrival_idx;
DROP INDEX authorship_arrival_idx;
DROP TRIGGER work_spread_created_at ON publications_work;
DROP FUNCTION publications_spread_work_created_at();
DROP TRIGGER worktopic_fill_work_created_at ON publications_worktopic;
DROP TRIGGER authorship_fill_work_created_at ON publications_authorship;
DROP FUNCTION publications_fill_work_created_at();
ALTER TABLE publications_worktopic DROP COLUMN work_created_at;
ALTER TABLE publications_authorship DROP COLUMN work_created_at;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("publications", "0006_listing_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="topic",
            name="followers_count",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(FORWARD, BACKWARD)],
            state_operations=[
                migrations.AddField(
                    model_name="authorship",
                    name="work_created_at",
                    field=models.DateTimeField(editable=False),
                    preserve_default=False,
                ),
                migrations.AddField(
                    model_name="worktopic",
                    name="work_created_at",
                    field=models.DateTimeField(editable=False),
                    preserve_default=False,
                ),
                migrations.AddIndex(
                    model_name="authorship",
                    index=models.Index(
                        fields=["researcher", "work_created_at", "work"],
                        name="authorship_arrival_idx",
                    ),
                ),
                migrations.AddIndex(
                    model_name="worktopic",
                    index=models.Index(
                        fields=["topic", "work_created_at", "work"],
                        name="work_topic_arrival_idx",
                    ),
                ),
            ],
        ),
    ]
