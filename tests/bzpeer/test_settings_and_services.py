"""Production settings pass Django's deploy checks; make's service check names what it tried."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from tests.conftest import REPO_ROOT


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    # The browser tests allow sync ORM calls in their own process; a deployment never does.
    inherited = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={**inherited, **env},
    )


def test_production_settings_pass_the_deploy_checks():
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SETTINGS_MODULE="bzpeer.settings.production",
        SECRET_KEY="a-long-random-production-secret-" + "x" * 40,
        ALLOWED_HOSTS="bzpeer.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def _production_value(expression: str, **env: str) -> str:
    inherited = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DJANGO_ALLOW_ASYNC_UNSAFE", "TRUSTED_PROXY_COUNT")
    }
    # The settings module read in a fresh process, as production's would read it; not through
    # `manage.py shell`, which also sets up every app and imports every model for the shell
    # (2.2 s against 0.8 s a value, on a loaded 2-core machine) to print one setting.
    result = subprocess.run(
        [sys.executable, "-c", f"from django.conf import settings; print({expression})"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={
            **inherited,
            "DJANGO_SETTINGS_MODULE": "bzpeer.settings.production",
            "SECRET_KEY": "a-long-random-production-secret-" + "x" * 40,
            "ALLOWED_HOSTS": "bzpeer.example.org",
            **env,
        },
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_production_trusts_its_one_tls_proxy_unless_told_how_many_there_are():
    """Behind the TLS proxy production needs, the client is the address that proxy appends
    (issue 28, item 11); the environment can say there are more, or none."""
    both = "(settings.TRUSTED_PROXY_COUNT, settings.REST_FRAMEWORK['NUM_PROXIES'])"
    assert _production_value(both) == "(1, 1)"
    assert _production_value(both, TRUSTED_PROXY_COUNT="2") == "(2, 2)"
    assert _production_value(both, TRUSTED_PROXY_COUNT="0") == "(0, 0)"


def test_production_refuses_to_start_without_a_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={**env, "DJANGO_SETTINGS_MODULE": "bzpeer.settings.production", "ALLOWED_HOSTS": "x"},
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_service_check_names_the_address_it_tried_in_one_line():
    port = _closed_port()
    result = subprocess.run(
        [sys.executable, "scripts/check_services.py"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "DATABASE_URL": f"postgres://postgres@127.0.0.1:{port}/bzpeer"},
    )
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert f"PostgreSQL is not reachable at 127.0.0.1:{port}" in result.stderr
    assert "DATABASE_URL" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_service_check_passes_when_both_services_answer():
    result = subprocess.run(
        [sys.executable, "scripts/check_services.py"], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
