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
