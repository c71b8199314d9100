from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_home_page_renders_with_local_assets_only(
    page, live_server, console_errors, screenshot
):
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))

    page.goto(live_server.url + "/")

    expect(page.get_by_role("search").first).to_be_visible()
    assert requested and all(
        url.startswith(live_server.url) or url.startswith("data:") for url in requested
    ), requested
    screenshot("desktop")
    page.set_viewport_size(PHONE)
    screenshot("phone")
