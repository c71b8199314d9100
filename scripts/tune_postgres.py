"""Size the PostgreSQL server in DATABASE_URL to this machine: the server settings of
bzpeer/database_settings.py (SERVER_SETTINGS, shared_buffers a quarter of the memory...),
written with ALTER SYSTEM and reloaded. `make bench` runs it first (docs/operating.md,
"PostgreSQL settings"); the Compose stack passes the same settings as flags.

    python scripts/tune_postgres.py [--memory-gb N] [--restart]

Settings PostgreSQL only changes at a restart (shared_buffers) are written and reported; with
--restart, a local Debian cluster (pg_lsclusters lists its port) is restarted with
pg_ctlcluster. Needs a superuser; without one it says so and changes nothing. Safe to run
again: a server that already has the settings is neither written nor reloaded nor restarted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bzpeer.database_settings import server_settings_apply, server_settings_for  # noqa: E402


def machine_memory_gb() -> float:
    """The memory of this machine, or of the container it runs in when a cgroup limits it."""
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
    except OSError:
        limit = "max"
    usable = min(physical, int(limit)) if limit.isdigit() else physical
    return usable / 1024**3


def _debian_cluster(port: int) -> tuple[str, str] | None:
    """(version, name) of the local Debian cluster on `port`, if there is one."""
    lsclusters = shutil.which("pg_lsclusters")
    if lsclusters is None or shutil.which("pg_ctlcluster") is None:
        return None
    listing = subprocess.run([lsclusters, "-h"], capture_output=True, text=True).stdout  # noqa: S603
    for line in listing.splitlines():
        version, name, cluster_port, *_ = [*line.split(), "", "", ""]
        if cluster_port == str(port):
            return version, name
    return None


def _restart_command(version: str, name: str) -> list[str]:
    ctlcluster = shutil.which("pg_ctlcluster") or "pg_ctlcluster"
    # Without systemd (a container, CI), pg_ctlcluster must not hand the restart to systemctl.
    redirect = [] if Path("/run/systemd/system").is_dir() else ["--skip-systemctl-redirect"]
    return [ctlcluster, *redirect, version, name, "restart"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memory-gb", type=float, default=None, help="default: this machine's")
    parser.add_argument(
        "--restart", action="store_true", help="restart a local Debian cluster if needed"
    )
    options = parser.parse_args(argv)
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bzpeer")
    parts = urlsplit(url)
    memory_gb = options.memory_gb or machine_memory_gb()
    settings = server_settings_for(memory_gb)
    admin_url = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as connection:
        superuser = connection.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        if not (row := superuser.fetchone()) or not row[0]:
            print(  # noqa: T201
                "PostgreSQL not tuned: the role of DATABASE_URL is not a superuser; set the "
                "server settings of docs/operating.md by hand"
            )
            return 0
        tuning = server_settings_apply(connection, settings)
    shown = ", ".join(f"{name}={value}" for name, value in settings.items())
    if not tuning.changed and not tuning.restart_needed:
        print(f"PostgreSQL already tuned for {memory_gb:.1f} GB ({shown})")  # noqa: T201
        return 0
    if tuning.changed:
        print(f"PostgreSQL tuned for {memory_gb:.1f} GB: {', '.join(tuning.changed)}")  # noqa: T201
    if not tuning.restart_needed:
        return 0
    waiting = ", ".join(tuning.restart_needed)
    cluster = (
        _debian_cluster(parts.port or 5432)
        if parts.hostname in ("127.0.0.1", "localhost")
        else None
    )
    if options.restart and cluster is not None:
        version, name = cluster
        print(f"restarting PostgreSQL {version}/{name} for {waiting}")  # noqa: T201
        subprocess.run(_restart_command(version, name), check=True)  # noqa: S603
        return 0
    how = f"pg_ctlcluster {cluster[0]} {cluster[1]} restart" if cluster else "restart the server"
    print(f"{waiting}: written, in effect after a restart ({how})")  # noqa: T201
    return 0


if __name__ == "__main__":
    sys.exit(main())
