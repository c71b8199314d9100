"""Browser tests: Playwright driving Debian's Chromium against pytest-django's live server.

Screenshots go to test-artifacts/screenshots/ (BZPEER_ARTIFACTS overrides the folder). Every
test fails if the page logged a console error or threw.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.support.discovery import (  # noqa: F401 - fixtures of the discovery journey
    abstracts,
    embedded_corpus,
    index_dir,
    real_works,
)

# Playwright's sync API runs an event loop in this thread; the ORM calls that set up data are
# still plain synchronous calls made between browser steps.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("BZPEER_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(os.environ.get("BZPEER_ARTIFACTS", REPO_ROOT / "test-artifacts"))
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        message = (
            f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set BZPEER_CHROMIUM)"
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        # The machine has no outside network: keep Chromium from trying to phone home.
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": DESKTOP}


@pytest.fixture
def console_errors(page):
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield errors
    assert errors == [], f"the browser console showed errors: {errors}"


@pytest.fixture
def screenshot(page, request):
    """screenshot("name") saves the page at its current size under test-artifacts/screenshots/."""
    folder = ARTIFACTS / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)

    def take(name: str, *, full_page: bool = True) -> Path:
        path = folder / f"{request.node.name}-{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take
