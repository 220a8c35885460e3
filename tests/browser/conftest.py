"""Playwright fixtures: Debian's Chromium driving the storefront on a real port, with the sandbox as provider.

One browser per session, a new context (cookies, storage) per test. Every page is watched: a JS error, a
Content-Security-Policy violation or a server error from one of our own pages fails the test that saw it.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Response,
    ViewportSize,
    expect,
    sync_playwright,
)

from tests.browser.steps import HTMX_READY_SCRIPT, check_accessibility, resize

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
DESKTOP = ViewportSize(width=1280, height=900)
PHONE = ViewportSize(width=390, height=844)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"
# How long an action or an `expect` waits for what it needs, at most: a ceiling that decides only how long a broken
# journey takes to fail, so it is set for a machine whose cores are busy with other work (stress-ng, another
# pytest worker), not for a quiet one: every wait ends as soon as its event happens.
DEFAULT_TIMEOUT_MS = 30_000
expect.set_options(timeout=DEFAULT_TIMEOUT_MS)


# When this process started: in a parallel run every worker starts at once, so a failure screenshot older than
# this is from an earlier run, and one newer is another worker's from this run.
_STARTED = time.time()


@pytest.fixture(scope="session", autouse=True)
def _no_stale_failure_screenshots() -> None:
    """Failure screenshots describe this run only; the journeys' own screenshots are simply overwritten."""
    for stale in SCREENSHOTS.glob("FAILED-*.png"):
        if stale.stat().st_mtime < _STARTED:
            stale.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        pytest.fail(
            "Chromium is not installed, so the browser journeys cannot run. Install Debian's package "
            "(`sudo apt-get install -y chromium`, as bin/test does); Playwright's own download is not used.",
            pytrace=False,
        )
    # Playwright's sync API runs an event loop in the main thread, and Django then refuses database access there
    # ("you cannot call this from an async context"). No database connection is ever used from that loop, so
    # the check is off while the browser runs (and so for any test after it in the same session), then back.
    previous = os.environ.get(ASYNC_UNSAFE)
    os.environ[ASYNC_UNSAFE] = "true"
    try:
        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            yield launched
            launched.close()
    finally:
        if previous is None:
            os.environ.pop(ASYNC_UNSAFE, None)
        else:
            os.environ[ASYNC_UNSAFE] = previous


@dataclass
class Watch:
    """What went wrong in the browser during one test, besides the test's own assertions."""

    origin: str
    errors: list[str] = field(default_factory=list)
    # Paths of our pages loaded in the browser, and those checked with axe (steps.check_accessibility).
    loaded: list[str] = field(default_factory=list)
    checked: set[str] = field(default_factory=set)
    # Sandbox faults answer 5xx on purpose; our own pages may answer 503 only as a designed, full page.
    allowed_document_statuses: set[int] = field(default_factory=lambda: {503})

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        text = message.text
        # A failed load is judged by its status in on_response (a designed 503 page logs this line too).
        if text.startswith("Failed to load resource"):
            return
        # htmx logs every aborted request as an error: a search replaced by the next keystroke (hx-sync), or a
        # request cut off by leaving the page. "htmx:afterRequest" is logged with every failure, and a real one
        # also logs its own line (htmx:sendError, htmx:timeout, htmx:responseError), which is still caught.
        if text.startswith(("htmx:sendAbort", "htmx:afterRequest")):
            return
        self.errors.append(f"console error: {text}")

    def on_load(self, page: Page) -> None:
        if page.url.startswith(self.origin):
            self.loaded.append(urlsplit(page.url).path)

    def unchecked(self) -> list[str]:
        return sorted({path for path in self.loaded if path not in self.checked})

    def on_page_error(self, error: Exception) -> None:
        self.errors.append(f"JavaScript error: {error}")

    def on_response(self, response: Response) -> None:
        status = response.status
        url = response.url
        if status < 400 or not url.startswith(self.origin):
            return
        path = urlsplit(url).path
        request = response.request
        if status < 500:
            # A page's own script, stylesheet or image that is missing (the browser's favicon probe aside).
            if request.resource_type in ("script", "stylesheet", "image", "font") and path != "/favicon.ico":
                self.errors.append(f"missing asset: {url} answered {status}")
            return
        if request.resource_type == "document" and status in self.allowed_document_statuses:
            return
        kind = "fragment" if request.headers.get("hx-request") else request.resource_type
        self.errors.append(f"server error: {request.method} {url} answered {status} ({kind})")


@pytest.fixture
def watch(live_server) -> Watch:
    return Watch(origin=live_server.url)


@pytest.fixture
def context(browser: Browser, live_server, priced, sandbox_partner) -> Iterator[BrowserContext]:
    # `priced`: the store sells nothing until its cost table is synced from the sandbox's price list.
    ctx = browser.new_context(base_url=live_server.url, viewport=DESKTOP, locale="en-US", timezone_id="UTC")
    ctx.set_default_timeout(DEFAULT_TIMEOUT_MS)
    ctx.add_init_script(HTMX_READY_SCRIPT)
    yield ctx
    ctx.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if report.when == "call":
        item.stash[_CALL_FAILED] = report.failed
    return report


_CALL_FAILED = pytest.StashKey[bool]()


@pytest.fixture
def page(request: pytest.FixtureRequest, context: BrowserContext, watch: Watch) -> Iterator[Page]:
    context.on("page", lambda new: _attach(new, watch))
    first = context.new_page()
    _attach(first, watch)
    yield first
    if request.node.stash.get(_CALL_FAILED, False):
        # What the customer was looking at when the journey broke, for the CI artifacts.
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        first.screenshot(path=str(SCREENSHOTS / f"FAILED-{request.node.name}.png"), full_page=True)
    assert not watch.errors, "The browser saw problems:\n" + "\n".join(watch.errors)
    # Every page of ours that the journey opened was checked with axe-core (steps.check_accessibility).
    unchecked = watch.unchecked()
    assert not unchecked, "Pages visited without an accessibility check (steps.check_accessibility):\n" + "\n".join(
        unchecked
    )


def _attach(page: Page, watch: Watch) -> None:
    if getattr(page, "_storefront_watched", False):
        return
    # Marks on playwright's own Page object (no field of its own): what steps.check_accessibility reports to.
    page._storefront_watched = True  # type: ignore[attr-defined]
    page._storefront_watch = watch  # type: ignore[attr-defined]
    page.on("load", watch.on_load)
    page.on("console", watch.on_console)
    page.on("pageerror", watch.on_page_error)
    page.on("response", watch.on_response)


# Elements wider than the window, which make a phone scroll sideways (a table or a long word that does not wrap).
_OVERFLOWING = """
() => {
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth <= width) return [];
  return Array.from(document.querySelectorAll("body *"))
    .filter((el) => el.getBoundingClientRect().right > width + 1 && getComputedStyle(el).position !== "fixed")
    .filter((el) => !Array.from(el.children).some((child) => child.getBoundingClientRect().right > width + 1))
    .slice(0, 5)
    .map((el) => el.outerHTML.slice(0, 120));
}
"""


@pytest.fixture
def screenshot(page: Page, watch: Watch):
    """Saves the page as artifacts/screenshots/<journey>-phone.png and -desktop.png, the whole page each time.

    At phone width our own pages must fit the screen: a page that scrolls sideways fails the test.
    """
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(journey: str) -> list[Path]:
        before = page.viewport_size or DESKTOP
        paths = []
        for size_name, size in (("phone", PHONE), ("desktop", DESKTOP)):
            resize(page, size)
            path = SCREENSHOTS / f"{journey}-{size_name}.png"
            # caret="initial": hiding the caret leaves an empty style attribute on every input, which htmx then
            # copies onto swapped-in inputs of the same id, and the strict CSP reports that as a violation.
            page.screenshot(path=str(path), full_page=True, caret="initial")
            paths.append(path)
            # What is worth a screenshot is worth axe's checks, at both widths (contrast and layout differ).
            if page.url.startswith(watch.origin):
                check_accessibility(page, where=f"({size_name})")
            # The sandbox's own pages (the control panel) are the provider's, not ours to lay out.
            if size is PHONE and page.url.startswith(watch.origin):
                wide = page.evaluate(_OVERFLOWING)
                if wide:
                    watch.errors.append(f"{path.name}: {page.url} is wider than a phone:\n  " + "\n  ".join(wide))
        page.set_viewport_size(before)
        return paths

    return take


@pytest.fixture(autouse=True)
def _sandbox_mailbox(settings, live_server) -> None:
    """As in development without a mail server: emails land in the mailbox page, where the journeys open them.
    The worker writes links on SITE_URL (it has no request): here, the live server."""
    from storefront.background.mailbox import BACKEND

    settings.EMAIL_BACKEND = BACKEND
    settings.SITE_URL = live_server.url
    settings.ACCOUNT_DEFAULT_HTTP_PROTOCOL = "http"


@pytest.fixture(autouse=True)
def _paced_provider_calls(settings) -> None:
    """The store paces its own provider calls as in production (storefront/settings.py: 10 a second, the sandbox
    partner's rate), rather than the unit tests' 1,000. A journey clicks faster than any customer: unpaced, a few
    DNS pages in one second (8 record reads each) went past the sandbox's burst and got its 429."""
    settings.RESELLER_RATE_LIMIT = 10


HELPER_SHOTS = Path("/work/helpers/shots")
SHOT_SIZES = {"desktop": ViewportSize(width=1280, height=800), "phone": ViewportSize(width=390, height=844)}


@pytest.fixture
def shots(page: Page, watch: Watch):
    """Screenshots for review at 1280x800 and 390x844 (auth-<name>-desktop.png, -phone.png), into
    /work/helpers/shots when that folder exists, else beside the others. A phone-width page must fit."""
    folder = HELPER_SHOTS if HELPER_SHOTS.is_dir() else SCREENSHOTS
    folder.mkdir(parents=True, exist_ok=True)

    def take(name: str) -> None:
        before = page.viewport_size or DESKTOP
        for size_name, size in SHOT_SIZES.items():
            resize(page, size)
            page.screenshot(path=str(folder / f"{name}-{size_name}.png"), full_page=True)
            if size_name == "phone":
                wide = page.evaluate(_OVERFLOWING)
                if wide:
                    watch.errors.append(f"{name}: {page.url} is wider than a phone:\n  " + "\n  ".join(wide))
        page.set_viewport_size(before)

    return take
