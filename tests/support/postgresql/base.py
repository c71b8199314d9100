"""The test settings' database backend: Django's PostgreSQL backend with a cheaper flush.

A test that needs real transactions (`django_db(transaction=True)`) ends with a flush, which
Django writes as one TRUNCATE of every table (about 80): PostgreSQL gives each table and index a
new file, 0.3-1 s a test on two cores. The same end state, every table empty, comes from a
DELETE of the few tables that hold rows (8 ms for a test's usual handful). The flush runs in one
transaction and Django's foreign keys are DEFERRABLE INITIALLY DEFERRED, so the order of the
DELETEs does not matter. A table whose trigger refuses a DELETE (the append-only moderation log)
is truncated instead. Content types and permissions stay: post_migrate, which the flush sends,
would only write the same rows again.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.db.backends.postgresql import base, creation

# Rows that every migrated database holds and post_migrate recreates identically.
KEPT = frozenset({"django_content_type", "auth_permission"})

# Tables with a trigger of our own on DELETE (tgtype bit 8).
TABLES_WITH_DELETE_TRIGGERS = """
    SELECT DISTINCT tgrelid::regclass::text FROM pg_trigger
    WHERE NOT tgisinternal AND tgtype & 8 <> 0
"""


class DatabaseOperations(base.DatabaseOperations):
    def sql_flush(
        self,
        style: Any,
        tables: list[str],
        *,
        reset_sequences: bool = False,
        allow_cascade: bool = False,
    ) -> list[str]:
        if reset_sequences or not tables:
            # A test that asked for fresh sequences gets Django's flush of every table.
            return super().sql_flush(
                style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        probes = " UNION ALL ".join(
            f"(SELECT {index} FROM {self.quote_name(table)} LIMIT 1)"
            for index, table in enumerate(tables)
            if table not in KEPT
        )
        with self.connection.cursor() as cursor:
            cursor.execute(probes)
            holding_rows = [tables[index] for (index,) in cursor.fetchall()]
            cursor.execute(TABLES_WITH_DELETE_TRIGGERS)
            refusing_delete = {name for (name,) in cursor.fetchall()}
        return [
            f"TRUNCATE {self.quote_name(table)} CASCADE;"
            for table in holding_rows
            if table in refusing_delete
        ] + [
            f"DELETE FROM {self.quote_name(table)};"
            for table in holding_rows
            if table not in refusing_delete
        ]


class DatabaseCreation(creation.DatabaseCreation):
    def create_test_db(
        self,
        verbosity: int = 1,
        autoclobber: bool = False,
        serialize: bool = True,
        keepdb: bool = False,
    ) -> str:
        """Django's test database creation, less its `migrate` when the database is copied from
        a migrated template (tests/support/template_database.py): the copy already holds every
        migration and the rows post_migrate writes, and loading the migrations only to find
        nothing to apply cost each test process 5-15 s."""
        if not self.connection.settings_dict["TEST"].get("TEMPLATE") or keepdb:
            return super().create_test_db(verbosity, autoclobber, serialize, keepdb)
        test_database_name = self._get_test_db_name()
        if verbosity >= 1:
            shown = self._get_database_display_str(verbosity, test_database_name)
            self.log(f"Creating test database for alias {shown} from its template...")
        self._create_test_db(verbosity, autoclobber, keepdb)
        self.connection.close()
        settings.DATABASES[self.connection.alias]["NAME"] = test_database_name
        self.connection.settings_dict["NAME"] = test_database_name
        if serialize:
            self.connection._test_serialized_contents = self.serialize_db_to_string()
        call_command("createcachetable", database=self.connection.alias)
        self.connection.ensure_connection()
        return test_database_name


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
    creation_class = DatabaseCreation
