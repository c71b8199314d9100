"""The audit log is append-only: PostgreSQL refuses UPDATE and DELETE on its rows, whoever
asks (the admin, a shell, a raw SQL session). TRUNCATE, which only a database owner's
maintenance (or a test teardown) uses, is not affected."""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION claims_moderationevent_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the moderation audit log is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER claims_moderationevent_append_only
BEFORE UPDATE OR DELETE ON claims_moderationevent
FOR EACH ROW EXECUTE FUNCTION claims_moderationevent_append_only();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS claims_moderationevent_append_only ON claims_moderationevent;
DROP FUNCTION IF EXISTS claims_moderationevent_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("claims", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
