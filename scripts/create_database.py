"""Create the database named in DATABASE_URL if it does not exist yet, and store on it the
per-database PostgreSQL settings bzpeer is tuned for (bzpeer/database_settings.py). Needs only
psycopg; safe to run again."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bzpeer.database_settings import database_settings_apply  # noqa: E402


def main() -> int:
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bzpeer")
    parts = urlsplit(url)
    name = parts.path.lstrip("/") or "bzpeer"
    admin_url = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        if not exists:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            print(f"created database {name}")
        database_settings_apply(connection.execute, name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
