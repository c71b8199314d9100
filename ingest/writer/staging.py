"""The staging-and-upsert helper every entity module of the writer uses.

A batch is COPied into a temporary staging table and merged into its table with one
INSERT ... ON CONFLICT ... DO UPDATE, so thousands of records cost a handful of statements.
The statement is built once per table from an UpsertTable, which names only what differs
between tables; what they share is written here once:

- every upserted table carries `content_hash` and `source_updated_at`: a row whose hash did not
  change is left alone, and an older copy of a record never overwrites a newer one;
- rows are inserted in key order, so two batches that touch the same rows lock them in the
  same order and cannot deadlock;
- RETURNING ends with `(xmax = 0)`, true for a row the statement inserted, false for one it
  updated; rows it left alone are not returned.

Preconditions: the caller holds a transaction (the staging tables drop on commit) and has
removed duplicates of the same key from the batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import psycopg

Cursor = psycopg.Cursor[Any]


@dataclass
class Warning_:
    external_id: str
    reason: str


@dataclass
class WriteResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    warnings: list[Warning_] = field(default_factory=list)
    touched_researcher_ids: set[int] = field(default_factory=set)
    # Of those, the ones it took off a byline and put on none of its own: nothing it wrote names
    # them, so only this set says their figures changed.
    unlinked_researcher_ids: set[int] = field(default_factory=set)
    # The works written (new or changed), for the graph's byline bookkeeping.
    work_ids: set[int] = field(default_factory=set)


def stage_rows(
    cursor: Cursor, table: str, columns: Sequence[tuple[str, str]], rows: Iterable[Sequence[Any]]
) -> None:
    """Create a temporary table and COPY rows into it (psycopg's binary-safe row writer).

    The table lives until the transaction ends; one of an earlier write in the same transaction
    (a batch written in halves after a refusal, ingest.services.batches) is replaced."""
    cursor.execute(f"DROP TABLE IF EXISTS pg_temp.{table}")
    cursor.execute(
        f"CREATE TEMP TABLE {table} ({', '.join(f'{name} {kind}' for name, kind in columns)}) ON COMMIT DROP"
    )
    names = ", ".join(name for name, _ in columns)
    with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def copy_rows(
    cursor: Cursor, table: str, columns: Sequence[tuple[str, str]], rows: Iterable[Sequence[Any]]
) -> None:
    """COPY rows straight into a table, in binary (the column types are given, so psycopg does
    not format text). For rows that cannot conflict: new works, or works whose rows were deleted."""
    with cursor.copy(
        f"COPY {table} ({', '.join(name for name, _ in columns)}) FROM STDIN (FORMAT BINARY)"
    ) as copy:
        copy.set_types([kind for _, kind in columns])
        for row in rows:
            copy.write_row(row)


def ids_by_key(cursor: Cursor, table: str, key_column: str, keys: Iterable[str]) -> dict[str, int]:
    """Row ids of the given external ids, in one query; ids with no row are left out."""
    keys = list(keys)
    if not keys:
        return {}
    cursor.execute(f"SELECT {key_column}, id FROM {table} WHERE {key_column} = ANY(%s)", [keys])
    return dict(cursor.fetchall())


@dataclass(frozen=True)
class Column:
    """A column of the upserted table (alias `t`), filled from the staged row (alias `s`).

    `value` is the SELECT expression (default `s.<name>`; a joined id or a constant otherwise);
    `update` what an update sets it to (default `EXCLUDED.<name>`); an `insert_only` column
    keeps the value it was created with.
    """

    name: str
    value: str | None = None
    update: str | None = None
    insert_only: bool = False


@dataclass(frozen=True)
class UniqueIdentifier:
    """A unique column besides the key (a ROR, an ORCID iD, a DOI). A staged row whose value is
    already held by another row of the table is imported without it, with a warning:
    `warning` is formatted with the column, the value and the holder's key."""

    column: str
    warning: str


@dataclass(frozen=True)
class UpsertTable:
    """What differs between the tables the writer upserts into.

    `staged`: the staging table's columns, in the order of the rows given to stage_and_upsert.
    `columns`: the table's own columns besides the key, content_hash, source_updated_at and the
    timestamps, which are added here. `joins` resolve staged external ids to row ids (`value` of
    a Column names them). `returning`: columns of the changed rows returned before the is-new
    flag. `timestamps`: the table has created_at and updated_at.
    """

    table: str
    stage: str
    staged: Sequence[tuple[str, str]]
    columns: Sequence[Column]
    key: str = "openalex_id"
    joins: str = ""
    unique_identifiers: Sequence[UniqueIdentifier] = ()
    returning: Sequence[str] = ()
    timestamps: bool = True
    # The row lock mode the upsert takes on the existing rows ("FOR UPDATE" when its SET list
    # has a key column, "FOR NO KEY UPDATE" otherwise), to take first on all of them in id
    # order; None: not locked beforehand. ON CONFLICT locks the rows in the order of the key,
    # which for researchers is not the id order every other transaction locks them in (the
    # lock order rule, researchers.services.locks): the two deadlocked (issue 24).
    lock_existing: str | None = None

    @cached_property
    def upsert_sql(self) -> str:
        columns = [
            Column(self.key, insert_only=True),
            *self.columns,
            Column("content_hash"),
            Column("source_updated_at"),
        ]
        if self.timestamps:
            columns += [
                Column("created_at", value="now()", insert_only=True),
                Column("updated_at", value="now()", update="now()"),
            ]
        updates = ",\n                ".join(
            f"{column.name} = {column.update or f'EXCLUDED.{column.name}'}"
            for column in columns
            if not column.insert_only
        )
        return f"""
            INSERT INTO {self.table} AS t
                ({", ".join(column.name for column in columns)})
            SELECT {", ".join(column.value or f"s.{column.name}" for column in columns)}
            FROM {f"{self.stage} s {self.joins}".rstrip()}
            ORDER BY s.{self.key}
            ON CONFLICT ({self.key}) DO UPDATE SET
                {updates}
            WHERE t.content_hash IS DISTINCT FROM EXCLUDED.content_hash
              AND (EXCLUDED.source_updated_at < t.source_updated_at) IS NOT TRUE
            RETURNING {", ".join([*(f"t.{name}" for name in self.returning), "(xmax = 0)"])}
            """

    @cached_property
    def identifier_sql(self) -> list[tuple[UniqueIdentifier, str]]:
        """Per unique identifier, the statement that clears it on the staged rows whose value
        another row holds; it returns their key, the value and the holder's key."""
        return [
            (
                identifier,
                f"""
                UPDATE {self.stage} s SET {identifier.column} = NULL FROM {self.table} t
                WHERE t.{identifier.column} = s.{identifier.column}
                  AND t.{self.key} IS DISTINCT FROM s.{self.key}
                RETURNING s.{self.key}, t.{identifier.column}, t.{self.key}
                """,
            )
            for identifier in self.unique_identifiers
        ]


def stage_and_upsert(
    cursor: Cursor, table: UpsertTable, rows: Sequence[Sequence[Any]], result: WriteResult
) -> list[tuple[Any, ...]]:
    """Stage rows (one per record), merge them into the table and count them into result.

    Returns the rows inserted or updated, each as `table.returning` then the is-new flag.
    """
    stage_rows(cursor, table.stage, table.staged, rows)
    for identifier, sql in table.identifier_sql:
        cursor.execute(sql)
        for external_id, value, holder in cursor.fetchall():
            result.warnings.append(
                Warning_(
                    external_id,
                    identifier.warning.format(column=identifier.column, value=value, holder=holder),
                )
            )
    if table.lock_existing:
        cursor.execute(
            f"SELECT t.id FROM {table.table} t JOIN {table.stage} s ON t.{table.key} = s.{table.key}"
            f" ORDER BY t.id {table.lock_existing}"
        )
    cursor.execute(table.upsert_sql)
    changed = cursor.fetchall()
    created = sum(1 for row in changed if row[-1])
    result.created += created
    result.updated += len(changed) - created
    result.unchanged += len(rows) - len(changed)
    return changed
