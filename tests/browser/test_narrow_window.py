"""A window that narrows after the page has drawn (a phone turned upright, a desktop window
made small): the research graph follows its container and the page never scrolls sideways."""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from graph import keys, services
from researchers.models import Researcher
from tests.browser.conftest import DESKTOP, PHONE
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.django_db(transaction=True)

# Widths of the page, of the graph's container and of what Cytoscape drew inside it.
MEASURE = """() => {
  const container = document.querySelector(arguments_selector);
  const drawn = Array.from(container.querySelectorAll("canvas, div"))
    .map((element) => element.getBoundingClientRect().width);
  return {
    scrollWidth: document.scrollingElement.scrollWidth,
    innerWidth: window.innerWidth,
    container: container.getBoundingClientRect().width,
    widestDrawn: Math.max(0, ...drawn),
  };
}"""


@pytest.fixture
def demo(run_import):
    redis = keys.redis_client()
    for name in redis.scan_iter(match=keys.key("graph:*")):
        redis.delete(name)
    run_import(REPO_ROOT / "demo" / "openalex")
    services.coauthor_edges_drain()
    return {r.openalex_id: r for r in Researcher.objects.all()}


def _measure(page, selector: str) -> dict[str, float]:
    return page.evaluate(MEASURE.replace("arguments_selector", repr(selector)))


def _assert_fits(page, selector: str, viewport: dict[str, int]) -> None:
    # The graph follows its container once the resize has been handled (a frame or two); if it
    # never does, the assertions below say by how much it overflows.
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(
            """([selector, width]) => {
              const container = document.querySelector(selector);
              const drawn = container.querySelector("canvas");
              return document.scrollingElement.scrollWidth <= window.innerWidth
                && container.getBoundingClientRect().width <= width
                && drawn && drawn.getBoundingClientRect().width
                   <= container.getBoundingClientRect().width + 0.5;
            }""",
            arg=[selector, viewport["width"]],
            timeout=5_000,
        )
    sizes = _measure(page, selector)
    assert sizes["innerWidth"] == viewport["width"]
    assert sizes["scrollWidth"] <= sizes["innerWidth"], f"the page scrolls sideways: {sizes}"
    assert sizes["widestDrawn"] <= sizes["container"] + 0.5, f"the graph overflows: {sizes}"


def test_the_profile_graph_follows_a_window_narrowed_to_a_phone(
    page, live_server, demo, console_errors, screenshot
):
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server.url}/researchers/{demo['A9900000001'].slug}/")
    canvas = page.locator("[data-graph-canvas]")
    expect(canvas).to_have_attribute("data-nodes", "10", timeout=10_000)
    desktop_width = _measure(page, "[data-graph-canvas]")["container"]

    page.set_viewport_size(PHONE)

    _assert_fits(page, "[data-graph-canvas]", PHONE)
    assert _measure(page, "[data-graph-canvas]")["container"] < desktop_width
    canvas.scroll_into_view_if_needed()
    screenshot("profile-narrowed")

    # And back: widened again, the graph takes the room it has.
    page.set_viewport_size(DESKTOP)
    _assert_fits(page, "[data-graph-canvas]", DESKTOP)
    # The narrow drawing fits a wide window too, so the wait above can end before the redraw
    # (a ResizeObserver callback, a frame or two later): wait for the canvas to grow, then say
    # by how much it did not if it never does.
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(
            """(width) => document.querySelector('[data-graph-canvas] canvas')
                 .getBoundingClientRect().width > width""",
            arg=PHONE["width"],
            timeout=5_000,
        )
    widened = page.evaluate(
        "document.querySelector('[data-graph-canvas] canvas').getBoundingClientRect().width"
    )
    assert widened > PHONE["width"], widened


def test_the_explorer_follows_a_window_narrowed_to_a_phone(
    page, live_server, demo, console_errors, screenshot
):
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server.url}/explore/?researcher={demo['A9900000001'].slug}")
    expect(page.locator("#explorer-status")).to_contain_text("nodes in the graph")

    page.set_viewport_size(PHONE)

    _assert_fits(page, "#explorer-canvas", PHONE)
    screenshot("explorer-narrowed")
