"""Fixtures shared by every test module, the sandbox provider among them.

The sandbox is a separate Django project (`python -m sandbox`): the session starts it once as a subprocess on a
free loopback port, with its own temporary SQLite database, migrated and seeded, and its test-only control
endpoint switched on. Tests reach it over HTTP only: the gateway as the provider, `sandbox_control` to arrange it.
"""

from __future__ import annotations

import copy
import functools
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import pytest
import requests
from django.conf import settings
from django.core.cache import cache, caches
from django.test import Client, RequestFactory, override_settings
from django.test.client import MULTIPART_CONTENT
from django.utils import translation

from storefront.gateway import gateway
from tests.fakes.gateway import CallLog, FakeGateway
from tests.sandbox_control import DEMO_PARTNER, SandboxControl, set_session_sandbox
from tests.stripe_control import TEST_KEY as STRIPE_TEST_KEY
from tests.stripe_control import WEBHOOK_SECRET as STRIPE_WEBHOOK_SECRET
from tests.stripe_control import StripeControl

if TYPE_CHECKING:
    from accounts.models import Customer

ROOT = Path(__file__).resolve().parent.parent
CUSTOMER_PASSWORD = "Checkout#Pass9"  # the `customer` fixture's


def _post_as_a_browser_form(original: Any) -> Any:
    """Django's test client posts a dict as multipart; a browser posts our forms (none takes files) form-encoded,
    and the site refuses multipart bodies unread (RequestGuardMiddleware). So a dict posted without a content
    type is sent as a browser sends it; a test that wants multipart says so."""

    @functools.wraps(original)
    def post(self: Any, path: str, data: Any = None, content_type: str | None = None, **extra: Any) -> Any:
        if content_type is None:
            if data is None or isinstance(data, dict | list | tuple):
                data = urlencode(data or {}, doseq=True)
                content_type = "application/x-www-form-urlencoded"
            else:
                content_type = MULTIPART_CONTENT
        return original(self, path, data, content_type, **extra)

    return post


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The whole-stack runs (`end_to_end`, minutes each) first, in a stable sort after pytest-django's ordering:
    in a parallel run (bin/test) the worker that takes them starts them at once, rather than the run ending on one
    that was started last."""
    items.sort(key=lambda item: item.get_closest_marker("end_to_end") is None)


# Replaced on the classes themselves, deliberately: every client and request factory of the suite posts this way.
RequestFactory.post = _post_as_a_browser_form(RequestFactory.post)  # type: ignore[method-assign]
Client.post = _post_as_a_browser_form(Client.post)  # type: ignore[method-assign]


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker) -> Iterator[None]:
    """After a transactional test Django empties every table and re-sends post_migrate, whose permission and
    content-type receivers re-derive the same rows app by app: a tenth of a second per such test, the largest
    single cost of the suite. The rows are taken once from the migrated database and put back as they were, the
    same primary keys included. Every other post_migrate receiver (the site, the legal pages) still runs."""
    from django.apps import apps
    from django.contrib.auth.management import create_permissions
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.management import create_contenttypes
    from django.contrib.contenttypes.models import ContentType
    from django.core.management.color import no_style
    from django.db import connections
    from django.db.models.signals import post_migrate

    with django_db_blocker.unblock():
        content_types = [ContentType(**row) for row in ContentType.objects.values()]
        permissions = [Permission(**row) for row in Permission.objects.values()]

    def restore(*, using: str, **_: Any) -> None:
        if ContentType.objects.using(using).exists():
            return
        ContentType.objects.using(using).bulk_create(content_types)
        Permission.objects.using(using).bulk_create(permissions)
        connection = connections[using]
        with connection.cursor() as cursor:  # PostgreSQL's sequences continue after the restored keys
            for statement in connection.ops.sequence_reset_sql(no_style(), [ContentType, Permission]):
                cursor.execute(statement)

    contenttypes = apps.get_app_config("contenttypes")
    post_migrate.disconnect(create_contenttypes)
    post_migrate.disconnect(dispatch_uid="django.contrib.auth.management.create_permissions")
    post_migrate.connect(restore, sender=contenttypes, dispatch_uid="tests-restore-content-types")
    yield
    post_migrate.disconnect(dispatch_uid="tests-restore-content-types")
    post_migrate.connect(create_contenttypes)
    post_migrate.connect(create_permissions, dispatch_uid="django.contrib.auth.management.create_permissions")


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    # After Django is set up:
    from domains.search.services import search_cache_forget
    from domains.search.views import search_listings_forget
    from pricing.quotes import display_price_book_forget
    from storefront.resilience.ratelimit import rate_limit_forget

    def forget() -> None:
        cache.clear()
        if "template_fragments" in settings.CACHES:
            caches["template_fragments"].clear()  # the layout's parts, drawn once per process (base.html)
        display_price_book_forget()  # search pages show prices from a per-process copy of the price book
        search_cache_forget()  # and answers from a per-process copy of the search cache
        search_listings_forget()  # drawn once per answer and price book
        rate_limit_forget()  # rate limits count in this process before the shared counter

    forget()
    yield
    forget()


@pytest.fixture(autouse=True)
def _outbox_sends_at_once(request, monkeypatch) -> None:
    """The outbox sends an email once its transaction commits (storefront/background/outbox.py). A test that runs inside
    one transaction never commits, so there the worker's task (immediate backend) sends it at once instead, as if the
    change had committed; tests marked `django_db(transaction=True)` keep the real commit-time sending."""
    marker = request.node.get_closest_marker("django_db")
    if marker is not None and (marker.kwargs.get("transaction") or marker.kwargs.get("serialized_rollback")):
        return
    from storefront.background import outbox
    from storefront.tasks import send_email

    monkeypatch.setattr(outbox, "_send_after_commit", lambda email_id: send_email.enqueue(email_id=email_id))


@pytest.fixture(autouse=True)
def _default_language_again() -> Iterator[None]:
    """LocaleMiddleware activates each request's language in the test's own thread and nothing switches it back:
    after a page asked for in Spanish, forms and helpers called directly by the next tests would answer in Spanish."""
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _staff_have_two_factor(request) -> Iterator[None]:
    """Production requires two-factor sign-in of staff (accounts/security/middleware.py) and the suite runs production
    settings: every staff user made in a test gets a TOTP authenticator, as a real one would have set up.
    Tests of the requirement itself opt out with `@pytest.mark.staff_without_two_factor`."""
    if request.node.get_closest_marker("staff_without_two_factor"):
        yield
        return
    from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
    from django.contrib.auth import get_user_model
    from django.db.models.signals import post_save

    def give_totp(sender, instance, created, **kwargs):
        if created and instance.is_staff:
            TOTP.activate(instance, generate_totp_secret())

    post_save.connect(give_totp, sender=get_user_model(), dispatch_uid="tests-staff-totp")
    yield
    post_save.disconnect(sender=get_user_model(), dispatch_uid="tests-staff-totp")


@pytest.fixture(autouse=True)
def _fresh_gateway() -> Iterator[None]:
    """Each test starts with a new gateway and payment breaker, so one test's failures never leave a circuit
    breaker open, and as a new process for /readyz (which reports the provider from the last call a process saw and
    probes at most once a minute: a test before it in the same worker must not decide whether it probes)."""
    from billing.payments.stripe_client import forget_breaker  # after Django is set up
    from storefront.observability.provider_state import provider_forget

    gateway.cache_clear()
    forget_breaker()
    provider_forget()
    yield
    gateway.cache_clear()
    forget_breaker()
    provider_forget()


@pytest.fixture
def fake_gateway(monkeypatch) -> Iterator[FakeGateway]:
    """The provider in memory (tests/fakes/gateway.py) in place of the HTTP client: for page and service tests
    that need a provider but do not test the HTTP boundary. Its `calls` log every call; `fail()` scripts faults."""
    fake = FakeGateway()
    monkeypatch.setattr("storefront.gateway.client.gateway_from_settings", lambda: fake)
    gateway.cache_clear()
    yield fake
    gateway.cache_clear()


@pytest.fixture
def fake_priced(fake_gateway, db) -> FakeGateway:
    """The in-memory provider with our cost table synced from its price list (as `priced` does for the sandbox)."""
    from pricing.sync import prices_sync  # after Django is set up

    result = prices_sync()
    assert result.ok, result.message
    fake_gateway.calls.clear()
    return fake_gateway


@pytest.fixture
def provider_calls(fake_gateway) -> CallLog:
    """The calls the (in-memory) provider receives from here on: request it after the fixtures that set up."""
    return CallLog(fake_gateway)


def _provider_set_up(request: pytest.FixtureRequest) -> None:
    """The provider this test talks to, set up before anyone signs up at it: the sandbox when the test uses it
    (`sandbox_url`, or a fixture built on it: `priced`, `sandbox_seeded`…), else the in-memory one (`fake_gateway`)."""
    request.getfixturevalue("sandbox_url" if "sandbox_url" in request.fixturenames else "fake_gateway")


@pytest.fixture
def customer(request: pytest.FixtureRequest, db: None) -> Customer:
    """The test's customer (tests/factories.py CustomerFactory), signed up at the provider the test uses, as the
    signup form does: the in-memory one, or the sandbox when the test uses it. Signs in with CUSTOMER_PASSWORD."""
    from tests.factories import CustomerFactory  # after Django is set up

    _provider_set_up(request)
    return CustomerFactory.create(at_provider=True, password=CUSTOMER_PASSWORD)


@pytest.fixture
def other_customer(request: pytest.FixtureRequest, db: None) -> Customer:
    """A second customer at the same provider: the one whose domains, checkouts and receipts `customer` must never
    reach."""
    from tests.factories import CustomerFactory  # after Django is set up

    _provider_set_up(request)
    return CustomerFactory.create(at_provider=True, name="Alan Turing")


def _sandbox_env(database: Path) -> dict[str, str]:
    # Nothing of the storefront's configuration leaks into the sandbox's process.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SANDBOX_", "RESELLER_", "DATABASE"))}
    env.update(
        DJANGO_SETTINGS_MODULE="sandbox.settings",
        SANDBOX_DATABASE_URL=f"sqlite:///{database}",
        SANDBOX_CONTROL="1",
        SANDBOX_LOG_LEVEL="WARNING",
        # As the storefront's own test settings do: a signup must not spend the gateway's 2 s on hashing.
        SANDBOX_PASSWORD_HASHERS="django.contrib.auth.hashers.MD5PasswordHasher",
    )
    return env


def _wait_until_up(process: subprocess.Popen, url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the sandbox exited with {process.returncode} before answering")
        try:
            if requests.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass  # the socket is ours from the start: until gunicorn serves it, a connection waits or fails
        time.sleep(0.1)
    raise RuntimeError(f"the sandbox did not answer at {url} within {seconds} s")


@pytest.fixture(scope="session")
def sandbox_server(tmp_path_factory) -> Iterator[SandboxControl]:
    """The sandbox, running for the whole session; its control client."""
    folder = tmp_path_factory.mktemp("sandbox")
    env = _sandbox_env(folder / "sandbox.sqlite3")
    # Its log (the 500s that tests inject among them) goes to a file beside its database, not into the test output.
    log = (folder / "sandbox.log").open("w")
    # Migrated and seeded in one process (each Django start costs most of a second of CPU, once per test worker).
    prepare = "from django.core.management import call_command as c; c('migrate', interactive=False); c('sandbox_seed')"
    subprocess.run(
        [sys.executable, "-m", "sandbox", "shell", "-c", prepare], cwd=ROOT, env=env, check=True, capture_output=True
    )
    # The listening socket is bound here and handed to gunicorn, so no other process can take the port between
    # choosing it and using it.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.set_inheritable(True)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "sandbox.wsgi",
            f"--bind=fd://{listener.fileno()}",
            "--worker-class=gthread",
            "--workers=1",
            "--threads=32",
            "--log-level=warning",
        ],
        cwd=ROOT,
        env=env,
        pass_fds=(listener.fileno(),),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    listener.close()
    try:
        try:
            _wait_until_up(server, url)
        except RuntimeError as err:
            raise RuntimeError(f"{err}; its log: {folder / 'sandbox.log'}") from err
        control = SandboxControl(url)
        set_session_sandbox(control)
        yield control
    finally:
        set_session_sandbox(None)
        # gunicorn's quick shutdown: nothing is left to finish at the session's end, and its graceful one waited
        # about two seconds per test process for idle keep-alive connections.
        server.send_signal(signal.SIGQUIT)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


@pytest.fixture
def sandbox_control(sandbox_server) -> SandboxControl:
    """The running sandbox's control client (state as the test left it; `sandbox_url` resets it)."""
    return sandbox_server


@pytest.fixture
def sandbox_url(sandbox_server) -> Iterator[str]:
    """The sandbox, reset to its seeded state, with the gateway pointed at it: yields its base URL."""
    sandbox_server.reset()
    root = sandbox_server.base_url
    # The settings let forms lead to the panel's origin, fixed when they load; this sandbox's port is only known now.
    policy = copy.deepcopy(settings.CONTENT_SECURITY_POLICY)
    policy["DIRECTIVES"]["form-action"] = ["'self'", root]
    with override_settings(
        RESELLER_BASE_URL=root,
        RESELLER_METASEARCH_URL=f"{root}/metasearch",
        RESELLER_PANEL_URL=f"{root}/panel",
        CONTENT_SECURITY_POLICY=policy,
    ):
        gateway.cache_clear()
        yield root
    gateway.cache_clear()


@pytest.fixture
def sandbox_partner(sandbox_url) -> str:
    """The sandbox's demo partner (the one the demo key opens), with its catalogue: its name."""
    return DEMO_PARTNER


@pytest.fixture
def priced(sandbox_url) -> str:
    """The sandbox as `sandbox_url` gives it, with our cost table synced from its price list (the store prices
    nothing until a sync ran): yields its base URL. Needs the database (a django_db test)."""
    from pricing.sync import prices_sync  # after Django is set up

    result = prices_sync()
    assert result.ok, result.message
    return sandbox_url


@pytest.fixture
def sandbox_seeded(sandbox_partner, priced) -> str:
    """For tests of the HTTP boundary that reach the sandbox: its demo partner freshly seeded, the gateway pointed at
    it and our cost table synced from its price list (modules override `seeded_partner` with it)."""
    return sandbox_partner


@pytest.fixture
def stripe_sandbox(sandbox_server) -> Iterator[StripeControl]:
    """The payment sandbox (served by the session's sandbox under /stripe/), reset, with billing pointed at it.

    It refuses every state-changing call without an idempotency key of our own (a capture, a refund, a session...):
    a call that loses its answer is asked again with the same key, and a missing key would charge twice. It is in
    strict mode: a request made for another API version, or with a parameter of an earlier one, is refused.
    """
    control = StripeControl(sandbox_server.base_url)
    control.reset()
    control.require_idempotency_keys()
    # Strict: every request the store sends is answered as Stripe does at the SDK's pinned API version only.
    control.setup(strict=True)
    with override_settings(
        STRIPE_API_BASE=control.api_base,
        STRIPE_SECRET_KEY=STRIPE_TEST_KEY,
        STRIPE_WEBHOOK_SECRET=STRIPE_WEBHOOK_SECRET,
        PAYMENTS_DISABLED=False,
    ):
        yield control
    control.reset()
