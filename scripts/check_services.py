"""Fail fast, in one line, when PostgreSQL or Redis cannot be reached.

Standard library only: it runs before the virtualenv exists.
"""

from __future__ import annotations

import os
import socket
import sys
from urllib.parse import urlsplit

DEFAULTS = {
    "DATABASE_URL": ("PostgreSQL", "postgres://postgres@127.0.0.1:5432/bzpeer", 5432),
    "REDIS_URL": ("Redis", "redis://127.0.0.1:6379/0", 6379),
}


def unreachable(name: str, variable: str, url: str, default_port: int) -> str | None:
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    port = parts.port or default_port
    try:
        with socket.create_connection((host, port), timeout=3):
            return None
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        return f"{name} is not reachable at {host}:{port} ({reason}); start it or set {variable}"


def main() -> int:
    problems = []
    for variable, (name, default_url, default_port) in DEFAULTS.items():
        problem = unreachable(name, variable, os.environ.get(variable, default_url), default_port)
        if problem:
            problems.append(problem)
    if problems:
        # One line, so `make` can show it as its own error message.
        print("; ".join(problems), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
