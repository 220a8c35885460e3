"""Settings for the test suite: production settings, with what a test run on plain HTTP needs."""

import os
import tempfile
from decimal import Decimal

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-secret-key")
os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "false")
os.environ.setdefault("DJANGO_SECURE_HSTS_SECONDS", "0")
# Production refuses to start without a real mail backend; the suite then swaps in locmem (below).
os.environ.setdefault("EMAIL_URL", "smtp://127.0.0.1:25")
# Production refuses to start without its public address; the suite's server answers to loopback names only.
os.environ.setdefault("SITE_URL", "http://127.0.0.1:8000")
os.environ.pop("RESELLER_API_KEY", None)
# The provider is the sandbox that the test session starts (tests/conftest.py), as in a demo deployment.
os.environ["RESELLER_SANDBOX"] = "true"
os.environ.pop("SANDBOX_URL", None)
# Production asks the EU's VIES about VAT numbers; the suite never does, except where a test points it at its own
# scripted server (tests/accounts/test_tax_details.py) and turns the check on.
os.environ.setdefault("TAX_VIES_CHECK", "false")
# The suite's prices and promotion caps are the demo catalogue's at cost; the card fee's part of the cost guard is
# tested with its own values (tests/pricing/test_promotion_fee.py).
os.environ.setdefault("PAYMENT_FEE_PERCENT", "0")
os.environ.setdefault("PAYMENT_FEE_FIXED", "0")

from storefront.queues import QUEUES
from storefront.settings import *  # noqa: F403
from storefront.settings import DATABASES

SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "tests"},
    # As in production: the layout's parts are kept (each test sees what a second page view would).
    "template_fragments": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "template-fragments",
        "TIMEOUT": None,
    },
}
# The provider's timeouts as in production: the sandbox answers every call within them even while other processes
# keep both cores busy (at 2 s, a loaded machine sometimes failed a call that was only slow). A test of a hang past
# the timeout shortens it for the calls it holds (`override_settings`, e.g. tests/browser/steps.py provider_hangs).
RESELLER_CONNECT_TIMEOUT = 3.05
RESELLER_READ_TIMEOUT = 10.0
RESELLER_SEARCH_READ_TIMEOUT = 4.0
RESELLER_AI_READ_TIMEOUT = 25.0
# One test process plays many web threads at once (live server, concurrency tests): no bulkhead here; the
# gateway's own tests exercise it.
RESELLER_MAX_CONCURRENT_CALLS = 0
# Serve static files straight from the finders (htmx from node_modules included) without collectstatic.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not SQLite's shared in-memory database: with the live server (browser journeys) and concurrent requests
    # writing at once, shared in-memory fails at once with "table is locked", where a file waits for the lock as
    # the development database does. One file per test process; durability is not needed.
    DATABASES["default"]["TEST"] = {
        "NAME": os.path.join(tempfile.gettempdir(), f"storefront-tests-{os.getpid()}.sqlite3")
    }
    DATABASES["default"]["OPTIONS"]["init_command"] = "PRAGMA synchronous=OFF"

# The live server's threads must not keep connections open past a test (PostgreSQL would refuse to drop the
# test database while they linger).
DATABASES["default"]["CONN_MAX_AGE"] = 0

# Tasks run at once, in the test's own process and transaction; the PostgreSQL worker test switches to the
# database backend itself.
TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend", "QUEUES": list(QUEUES)}}
if os.environ.get("STOREFRONT_TEST_TASKS") == "database":
    # The worker processes that tests/worker/test_postgres_workers.py starts run the real database backend.
    TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}}
# The webhook tests' receivers listen on loopback (production refuses them: reseller_webhooks/addresses.py).
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
# The sync's pacing is tested with a fake clock; the real limit would only slow the suite.
ORDER_SYNC_REQUESTS_PER_SECOND = 1000.0
# Likewise the gateway's calls per second to the provider: its limiter is tested with its own limits
# (tests/storefront/test_gateway_resilience.py); at the real 10 a contract test of a dozen calls waited a second.
RESELLER_RATE_LIMIT = 1000
RESELLER_SEARCH_RATE_LIMIT = 1000
# The payment sandbox answers every test's calls within this even on a loaded machine (a 2 s limit failed the suite
# while other processes kept both cores busy). The one test of a lost answer shortens it for the call it holds
# (tests/billing/test_payment_flow.py).
STRIPE_READ_TIMEOUT = 20.0  # as production
# The checkout tests that predate payments register straight away, as a store with PAYMENTS_DISABLED=true does;
# the payment tests switch payments on with the `stripe_sandbox` fixture.
PAYMENTS_DISABLED = True

# The store sells with a markup, as every real store does: with none, retail equals cost, and a charge taken at cost
# (a renewal charged the provider's price) looked right to every test. A fixed amount per year rather than a
# percentage, so retail differs from cost for every operation and term, a free first year included; and 1.50 rather
# than a round 1.00: the demo catalogue's costs end in .99 a year, a step of 1.00 apart (.com 12.99, .net 13.99),
# so with 1.00 one TLD's retail price would read as the next one's cost on a page listing both. Prices stay easy to
# compute in a test: cost + 1.50 a year (.com: $14.49 first year, then $16.49/yr). Tests of the pricing mechanics
# state their own rule (tests/pricing/conftest.py `markup`), never this one.
PRICE_MARKUP_PERCENT = Decimal("0")
PRICE_MARKUP_FIXED = Decimal("1.50")
PRICE_ROUNDING = "none"
