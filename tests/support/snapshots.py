"""Rows built once per test process and copied into the tests that need them.

Data that many tests need and that takes real work to build (the demo import, verified
researchers made through the claim services) is built once, its rows read table by table as
PostgreSQL COPY data, and copied into each test's own transaction in milliseconds; they go with
the test's rollback. Sequences are moved past the copied ids, so a test's own rows never collide
with them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection

# Rows every migrated database holds whatever the test: never part of a snapshot.
NOT_SNAPSHOT_TABLES = frozenset({"django_content_type", "auth_permission", "django_site"})


@dataclass(frozen=True)
class TableRows:
    table: str
    copy_data: bytes
    # The table's id sequence, moved past the copied ids when they are copied in.
    id_sequence: str | None


def tables_holding_rows() -> list[str]:
    """The tables (other than NOT_SNAPSHOT_TABLES) that hold at least one row."""
    names = [
        name
        for name in connection.introspection.django_table_names(only_existing=True)
        if name not in NOT_SNAPSHOT_TABLES
    ]
    probes = " UNION ALL ".join(
        f"(SELECT {index} FROM {connection.ops.quote_name(name)} LIMIT 1)"
        for index, name in enumerate(names)
    )
    with connection.cursor() as cursor:
        cursor.execute(probes)
        return [names[index] for (index,) in cursor.fetchall()]


def rows_of(table: str) -> TableRows:
    """Every row of `table`, as COPY data."""
    quoted = connection.ops.quote_name(table)
    with connection.cursor() as cursor:
        data = bytearray()
        with cursor.cursor.copy(f"COPY {quoted} TO STDOUT") as copy:
            for block in copy:
                data += block
        columns = connection.introspection.get_table_description(cursor, table)
        sequence = None
        if any(column.name == "id" for column in columns):
            cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [quoted])
            (sequence,) = cursor.fetchone()
    return TableRows(table=table, copy_data=bytes(data), id_sequence=sequence)


def snapshot_taken() -> list[TableRows]:
    """The rows of every table that holds some."""
    return [rows_of(table) for table in tables_holding_rows()]


def snapshot_restore(snapshot: Iterable[TableRows]) -> None:
    """Copy the rows into the current transaction; foreign keys are checked at the end."""
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        for rows in snapshot:
            quoted = connection.ops.quote_name(rows.table)
            with cursor.cursor.copy(f"COPY {quoted} FROM STDIN") as copy:
                copy.write(rows.copy_data)
            if rows.id_sequence:
                # Forward only: past the copied ids and whatever the test made before.
                cursor.execute(
                    f"SELECT setval(%s, GREATEST((SELECT max(id) FROM {quoted}),"
                    " pg_sequence_last_value(%s::regclass), 1))",
                    [rows.id_sequence, rows.id_sequence],
                )
        # Foreign keys are checked now, not at a commit that may never come.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
