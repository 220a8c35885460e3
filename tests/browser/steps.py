"""Steps the journeys share, done the way a customer does them: through the pages, with visible labels."""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from axe_playwright_python.sync_playwright import Axe
from django.test import override_settings
from playwright.sync_api import Locator, Page, ViewportSize, expect

from storefront.models import MailboxMessage
from tests.sandbox_control import session_sandbox

PASSWORD = "Quokka#Sun27"


@dataclass
class Person:
    email: str
    password: str = PASSWORD
    name: str = "Grace Hopper"
    address: str = "1 Harbour Street"
    city: str = "Arlington"
    zipcode: str = "22201"
    country: str = "United States"
    state: str = "Virginia"
    dial_code: str = "1"
    phone: str = "7035550123"


_AXE = Axe()

# A journey of a provider answer that never comes: the sandbox holds its answers HANG_SECONDS, and only while it
# does the store gives up after GIVES_UP_AFTER seconds (every other call has production's timeouts, which a loaded
# machine needs: tests/settings.py).
HANG_SECONDS = 3
GIVES_UP_AFTER = 2.0


@contextmanager
def provider_hangs(*, scope: str = "", hang_after_commit: bool = False) -> Iterator[None]:
    """The session's sandbox holds its answers past the store's read timeouts for the block: those of the endpoint
    groups `scope` names (default: every one), after acting on them with `hang_after_commit`. The gateway is made
    again with the shortened timeouts on the way in and with the test's own on the way out
    (storefront/gateway/client.py forgets it on a setting change)."""
    shortened = override_settings(RESELLER_READ_TIMEOUT=GIVES_UP_AFTER, RESELLER_SEARCH_READ_TIMEOUT=GIVES_UP_AFTER)
    fault = session_sandbox().fault(hang_seconds=HANG_SECONDS, hang_after_commit=hang_after_commit, scope=scope)
    with shortened, fault:
        yield


# Run in every page before its own scripts (conftest's `context`): notes when htmx has done its start-up pass over
# the document, which ends with an `htmx:load` on <body>. Until then no element of the page is wired to htmx.
HTMX_READY_SCRIPT = """
document.addEventListener("htmx:load", (event) => {
  if (event.target === document.body) window.__journeyHtmxReady = true;
});
"""

_HTMX_SETTLED = """
() => window.__journeyHtmxReady === true
  && !document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added")
"""


def eventually(condition: Callable[[], bool], *, seconds: float = 20.0, what: str = "it") -> None:
    """Until `condition()` holds: what the payment sandbox's webhook deliveries (from a thread of its own, after the
    page answered) change on our side. Fails after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen in time"
        time.sleep(0.1)


def email_arrived(subject: str) -> None:
    """Until the store has sent an email whose subject starts with `subject` (into the test mailbox). One sent from
    another thread once its transaction commits (the outbox: a webhook's, a job's) arrives a moment after what
    caused it can be read, and a mailbox page loaded in that moment would never show it."""
    found = MailboxMessage.objects.filter(subject__startswith=subject)
    eventually(found.exists, what=f"the email {subject!r}")


def wait_for_htmx(page: Page) -> None:
    """Until htmx has processed the page and has no request, swap or settle under way.

    htmx listens only on elements it has processed: on a page still loading, and for some milliseconds after a
    swap (new content is processed when it settles), a control changed by the journey would send nothing. Not
    for a page with a request that only the test releases (held AI suggestions): this would wait for it.
    """
    page.wait_for_function(_HTMX_SETTLED)


# Resolves after two animation frames: the first runs once the page is laid out at the new size, the second once that
# layout has been painted.
_NEXT_PAINT = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"


def resize(page: Page, size: ViewportSize) -> None:
    """The window at `size`, returning once the page has been laid out and painted at it (for a screenshot or a
    layout check), rather than after a fixed pause."""
    page.set_viewport_size(size)
    page.evaluate(_NEXT_PAINT)


def check_accessibility(page: Page, *, where: str = "") -> None:
    """axe-core's checks (WCAG 2 A and AA and its best practices) on the page as it is now: any violation fails.

    Called on every page a journey opens (conftest's `page` fixture fails a journey that opened one of our
    pages without it), and again after a swap that changes much of a page. `where` names the state checked.
    """
    page.wait_for_load_state()
    results = _AXE.run(page)
    watch = getattr(page, "_storefront_watch", None)
    if watch is not None:
        watch.checked.add(urlsplit(page.url).path)
    violations = results.response["violations"]
    if violations:
        lines = [f"{len(violations)} accessibility violation(s) on {page.url} {where}".rstrip()]
        for violation in violations:
            nodes = "; ".join(" ".join(node["target"]) for node in violation["nodes"][:4])
            lines.append(f"- {violation['id']} ({violation['impact']}): {violation['help']} at {nodes}")
        raise AssertionError("\n".join(lines))


# Names are unique per test and the same on every run (a hash of the test's id and a count), not random: the
# sandbox's database lasts the session, so names must not repeat across tests, and repeatable names make the
# screenshots of two runs comparable pixel for pixel (before and after a refactoring).
_drawn: defaultdict[str, itertools.count[int]] = defaultdict(itertools.count)


def _unique_hex(length: int) -> str:
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    return hashlib.sha256(f"{test}#{next(_drawn[test])}".encode()).hexdigest()[:length]


def new_person(**details: str) -> Person:
    return Person(email=f"visitor-{_unique_hex(10)}@example.org", **details)


def unique_label(word: str) -> str:
    """A search word no other test uses (the sandbox keeps every registration in its database)."""
    return f"{word}{_unique_hex(6)}"


def choose_country(page: Page, country: str, state: str) -> None:
    """Picks the country once htmx listens to it, waits for its own state list (htmx swaps it in, and settles
    it), then picks the state."""
    wait_for_htmx(page)
    page.get_by_label("Country").select_option(label=country)
    states = page.get_by_label("State or province")
    expect(states.locator("option", has_text=re.compile(f"^{re.escape(state)}$"))).to_have_count(1)
    wait_for_htmx(page)
    states.select_option(label=state)


def fill_signup(page: Page, person: Person) -> None:
    page.get_by_label("Full name").fill(person.name)
    page.get_by_label("Email").fill(person.email)
    choose_country(page, person.country, person.state)
    # Exact: their English spellings' fields ("City in English letters") are labelled after them.
    page.get_by_label("Street address", exact=True).fill(person.address)
    page.get_by_label("City", exact=True).fill(person.city)
    page.get_by_label("Postal code").fill(person.zipcode)
    expect(page.get_by_label("Dialling prefix")).to_have_value(person.dial_code)
    page.get_by_label("Phone").fill(person.phone)
    page.get_by_label("Password", exact=True).fill(person.password)
    page.get_by_label("Password again").fill(person.password)


@dataclass(frozen=True)
class ConfirmationWords:
    """What the confirmation steps read, in the page's language."""

    mailbox: str = "Emails sent"
    confirm: str = "Confirm"
    confirmed: str = "Your email is confirmed and your account is ready to buy domains."


SPANISH_CONFIRMATION = ConfirmationWords(
    mailbox="Correos enviados",
    confirm="Confirmar",
    confirmed="Tu correo electrónico está confirmado y tu cuenta ya puede comprar dominios.",
)


def confirm_email(page: Page, person: Person, *, words: ConfirmationWords = ConfirmationWords()) -> None:
    """Opens the confirmation email in the sandbox mailbox (linked from the test banner) and follows its link;
    the customer ends where the link brings them back (the checkout, or the page `next` named at signup)."""
    page.get_by_role("link", name=words.mailbox).click()
    message = page.locator(".mailbox-message", has_text=person.email).first
    expect(message).to_be_visible()
    if message.get_attribute("open") is None:
        message.locator("summary").click()
    check_accessibility(page, where="(mailbox)")
    message.locator('a[href*="/accounts/confirm-email/"]').first.click()
    check_accessibility(page, where="(confirm email)")
    page.get_by_role("button", name=words.confirm).click()
    expect(page.get_by_text(words.confirmed)).to_be_visible()
    check_accessibility(page, where="(after confirming)")


def sign_up(page: Page, person: Person) -> None:
    """Creates the account from the signup page and confirms the address from the sandbox mailbox; the
    customer ends on the page `next` named (or the checkout)."""
    if "/accounts/signup/" not in page.url:
        page.goto("/accounts/signup/")
    check_accessibility(page)
    fill_signup(page, person)
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("heading", name="Confirm your email address")).to_be_visible()
    check_accessibility(page)
    confirm_email(page, person)


def add_to_cart(page: Page, domain_name: str) -> None:
    """On a search results page: the row's own button, then its confirmation in place."""
    button = page.get_by_role("button", name=f"Add {domain_name} to cart")
    button.click()
    row = page.locator(".result-row", has=page.get_by_role("button", name=f"Add {domain_name} to cart"))
    expect(row.get_by_text("In your cart")).to_be_visible()


def search_page(page: Page, term: str) -> None:
    page.goto(f"/search/?q={term}")
    expect(page.get_by_text("Results for")).to_be_visible()
    check_accessibility(page)


def accept_terms(page: Page) -> None:
    """Tick the checkout's box accepting the terms of service and the registration agreement."""
    page.get_by_role("checkbox", name=re.compile("I accept the terms of service")).check()


def start_checkout(page: Page, *domain_names: str) -> None:
    """A signed-in customer adds the names from the search page and presses Buy now (with payments on, the payment
    page follows)."""
    for name in domain_names:
        search_page(page, name)
        add_to_cart(page, name)
    page.goto("/checkout/")
    check_accessibility(page)
    accept_terms(page)
    page.get_by_role("button", name=re.compile(r"^Buy now")).click()


def buy(page: Page, *domain_names: str) -> None:
    """A signed-in customer adds the names from the search page and checks out; every name ends registered."""
    start_checkout(page, *domain_names)
    expect(page.get_by_role("heading", name="Your order")).to_be_visible()
    expect(page.get_by_text(re.compile(rf"Done: {len(domain_names)} domains? registered"))).to_be_visible()
    check_accessibility(page)


def pay_by_card(page: Page, card: str = "4242 4242 4242 4242") -> None:
    """On the payment sandbox's page: type the card number and press Pay."""
    page.get_by_label("Card number").fill(card)
    page.get_by_role("button", name=re.compile(r"^Pay ")).click()


def customer_with_domains(page: Page, *domain_names: str) -> Person:
    """A new customer, signed up through the page, who has bought the names: where journeys 2-4 start."""
    person = new_person()
    sign_up(page, person)
    buy(page, *domain_names)
    return person


# Every visible form control (not hidden inputs or buttons) with no name a screen reader can announce.
_UNLABELLED_FIELDS = """
() => Array.from(document.querySelectorAll("input, select, textarea")).filter((el) => {
  const type = (el.getAttribute("type") || "").toLowerCase();
  if (["hidden", "submit", "button", "reset", "image"].includes(type)) return false;
  const style = getComputedStyle(el);
  if (style.display === "none" || style.visibility === "hidden" || !el.getClientRects().length) return false;
  const text = (node) => (node && node.textContent || "").trim();
  if (Array.from(el.labels || []).some((label) => text(label))) return false;
  if ((el.getAttribute("aria-label") || "").trim()) return false;
  const ids = (el.getAttribute("aria-labelledby") || "").split(/\\s+/).filter(Boolean);
  if (ids.some((id) => text(document.getElementById(id)))) return false;
  return true;
}).map((el) => el.outerHTML.slice(0, 160))
"""


def unlabelled_fields(page: Page) -> list[str]:
    return page.evaluate(_UNLABELLED_FIELDS)


def assert_every_field_labelled(page: Page) -> None:
    missing = unlabelled_fields(page)
    assert not missing, f"Form fields without a label on {page.url}:\n" + "\n".join(missing)


_FOCUS_RING = """
(el) => {
  const style = getComputedStyle(el);
  const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
  return outline || style.boxShadow !== "none";
}
"""


def tab_to(page: Page, target: Locator, *, limit: int = 60) -> int:
    """Presses Tab until the target has the keyboard focus, which must be visible; returns the presses."""
    target.wait_for()
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if target.evaluate("(el) => el === document.activeElement"):
            assert target.evaluate(_FOCUS_RING), f"{target} has the focus but shows no outline or ring"
            return presses
    raise AssertionError(f"{target} never got the keyboard focus in {limit} presses of Tab")


@dataclass
class Soft:
    """Checks that report at the end of the journey instead of stopping it, so one run shows every problem."""

    problems: list[str] = field(default_factory=list)

    @contextmanager
    def check(self, what: str) -> Iterator[None]:
        try:
            yield
        except AssertionError as err:
            self.problems.append(f"{what}: {str(err).splitlines()[0]} ({' '.join(str(err).split()[-6:])})")

    def assert_none(self) -> None:
        assert not self.problems, "\n".join(self.problems)


def sign_in_with_password(page: Page, email: str, password: str) -> None:
    """Email and password on the sign-in page, for a customer with two-factor on: up to the code page."""
    page.goto("/accounts/login/")
    check_accessibility(page)
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign In", exact=True).click()
    expect(page.get_by_role("heading", name="Two-Factor Authentication")).to_be_visible()
    assert "/accounts/2fa/authenticate/" in page.url
    check_accessibility(page, where="(code asked)")
