"""docker-compose.yml defines the services the README promises, and Compose accepts it."""

from __future__ import annotations

import shutil
import subprocess

import yaml

from tests.conftest import REPO_ROOT


def test_compose_defines_db_redis_web_worker_and_beat():
    compose = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
    services = compose["services"]

    assert {"db", "redis", "web", "worker", "beat"} <= set(services)
    assert "healthcheck" in services["db"] and "healthcheck" in services["redis"]
    for name in ("web", "worker", "beat"):
        environment = services[name]["environment"]
        assert "db" in str(environment["DATABASE_URL"]) and "redis" in str(
            environment["REDIS_URL"]
        ), name
    assert "celery" in str(services["worker"]["command"]) and "worker" in str(
        services["worker"]["command"]
    )
    assert "beat" in str(services["beat"]["command"])


def test_the_web_port_is_published_on_the_hosts_loopback_only():
    """A client reaching gunicorn directly could forge X-Forwarded-For (issue 28, item 11)."""
    compose = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
    ports = compose["services"]["web"]["ports"]
    assert ports and all(str(port).startswith("127.0.0.1:") for port in ports)


def test_compose_accepts_the_file():
    if (
        shutil.which("docker")
        and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0
    ):
        command = ["docker", "compose", "config", "--quiet"]
    else:
        command = [shutil.which("docker-compose") or "docker-compose", "config", "--quiet"]
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_image_runs_the_production_settings():
    """The Dockerfile's image is what a deployment runs: production settings unless told
    otherwise (docker-compose.yml, a development stack, says local explicitly)."""
    dockerfile = (REPO_ROOT / "Dockerfile").read_text()
    assert "DJANGO_SETTINGS_MODULE=bzpeer.settings.production" in dockerfile
    assert "bzpeer.settings.local" not in dockerfile
    compose = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
    assert compose["x-app"]["environment"]["DJANGO_SETTINGS_MODULE"] == "bzpeer.settings.local"


def test_compose_has_a_streaming_replica_and_a_transaction_pooler():
    compose = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
    services = compose["services"]

    replica = " ".join(services["replica"]["command"])
    assert "pg_basebackup -h db" in replica and " -R " in replica and "hot_standby=on" in replica
    assert "replication" in " ".join(services["db"]["command"])
    assert services["pgbouncer"]["environment"]["POOL_MODE"] == "transaction"
    assert "replica" in services["web"]["environment"]["DATABASE_REPLICA_URLS"]
    assert services["web"]["depends_on"]["replica"]["condition"] == "service_healthy"


def test_the_compose_database_runs_with_the_settings_bzpeer_is_tuned_for():
    """The server settings of bzpeer/database_settings.py, sized for the 4 GB the stack's
    database is given, and the per-database ones stored by the migrate step."""
    from bzpeer.database_settings import server_settings_for

    compose = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    database_command = " ".join(services["db"]["command"])
    for name, value in server_settings_for(4).items():
        assert f"-c {name}={value}" in database_command, name
    assert "scripts/create_database.py" in " ".join(services["migrate"]["command"])
