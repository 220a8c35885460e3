"""Settings, all read from the environment (django-environ).

Development defaults are safe and need no configuration: SQLite, the built-in sandbox as the provider, the
console email backend. Production (DJANGO_DEBUG off, the default) refuses to start without a secret key.
"""

import logging
import os
import re
import tempfile
from decimal import Decimal, InvalidOperation
from email.utils import getaddresses
from pathlib import Path
from urllib.parse import urlparse

import environ
from django.core.exceptions import ImproperlyConfigured

from storefront.queues import QUEUES
from storefront.requests.hosts import is_loopback_host, is_loopback_url
from storefront.site.capabilities import CAPABILITIES, unknown_capabilities

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DJANGO_DEBUG", default=False)

# What production (DEBUG off) cannot work without, each as a sentence saying what to set: collected, so that one
# start-up error names everything missing at once (raised at the end of this module).
_PRODUCTION_REFUSALS: list[str] = []


def _refuse_in_production(sentence: str) -> None:
    if not DEBUG:
        _PRODUCTION_REFUSALS.append(sentence)


SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
if not SECRET_KEY:
    _refuse_in_production("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off.")
    # Only ever used with DEBUG on, on a developer's machine (with DEBUG off the module refuses to load at its end).
    SECRET_KEY = "dev-only-insecure-secret-key-never-used-in-production"

ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.sites",
    "django.contrib.flatpages",
    # allauth's security-key list loads `humanize` (naturaltime): without it that page is a 500.
    "django.contrib.humanize",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "django_tasks",
    "django_tasks_db",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    # Staff act as a customer to see what they see (accounts/staff/acting.py); its own banner and buttons are ours.
    "hijack",
    "storefront",
    "accounts",
    "domains",
    "dns",
    "pricing",
    "billing",
    # The staff API (/api/v1/, docs/api.md): nothing above imports it.
    "reseller_api",
    "reseller_webhooks",
    "demand",
]

MIDDLEWARE = [
    # First: everything after it, the error pages and the request's log line run under the request's id.
    "storefront.requests.request_ids.RequestIdMiddleware",
    "storefront.requests.middleware.RequestLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Before sessions and CSRF: a method or body no page takes is turned away unread.
    "storefront.requests.middleware.RequestGuardMiddleware",
    # A request under /api/v1/ is served with the staff API's URLconf, which the root one leaves out so that only a
    # worker asked for the API loads it (reseller_api/middleware.py). Here, after the guard: the request id, the log
    # line (its route is read from the resolved match, whichever URLconf), the security headers and the guard's
    # refusals apply to API requests as to any other, and none of them resolves a URL. Before everything that does:
    # CommonMiddleware's and LocaleMiddleware's checks of a path resolve with the request's URLconf.
    "reseller_api.middleware.ApiUrlconfMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After sessions (it reads the chosen language from the cookie set by set_language) and before common.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Marks a request of staff acting as a customer (request.user.is_hijacked).
    "hijack.middleware.HijackUserMiddleware",
    # Who acts, for the activity log (accounts/staff/activity.py): the customer, staff, staff as the customer.
    "accounts.security.middleware.ActivityActorMiddleware",
    # Suspends a request that needs a fresh password (transfer code, email change) and resumes it afterwards.
    "allauth.account.middleware.AccountMiddleware",
    # Staff without two-factor sign-in are sent to set it up before the admin opens (production only).
    "accounts.security.middleware.StaffTwoFactorMiddleware",
    # Notices of sign-ins from a browser the account never used (a signed cookie of accounts seen).
    "accounts.security.middleware.KnownBrowserMiddleware",
    # Prices in the signed-in customer's currency (remembered in the session: no query per page).
    "accounts.currency.CustomerCurrencyMiddleware",
    # The signed-in customer's chosen language for their pages (the browser's never replaces it; accounts/language.py).
    "accounts.language.CustomerLanguageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, so it sees what the views raise: an outside service's error becomes its page or fragment.
    "storefront.requests.middleware.StoreErrorMiddleware",
]

ROOT_URLCONF = "storefront.urls"
WSGI_APPLICATION = "storefront.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "storefront.context_processors.storefront",
                "domains.context_processors.cart",
                "accounts.staff.acting.acting_context",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A database that does not answer (a failover, a dropped route) fails a request in seconds, with its 503 page,
    # instead of holding it past a router's 30 s.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default serves the storefront and the built-in sandbox from one file, from several
    # threads at once: wait for the write lock instead of failing at once.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    # Take the write lock when a transaction starts, so a read-then-write transaction waits its turn instead
    # of failing at once with "database is locked" when it tries to upgrade.
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
    # Write-ahead logging: readers never wait for a writer, and a commit appends to the log without waiting for
    # the disk (synchronous=NORMAL) instead of syncing the database file several times; a crash of the process
    # loses nothing committed, a power cut may lose the last commits but never corrupts the file. Without it each
    # write (a search answer cached in the database cache, a rate-limit count) waited for the disk, tens of ms.
    DATABASES["default"]["OPTIONS"]["init_command"] = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Shared by every process by default: one-time claims, rate limits and lockouts must count across gunicorn's
# workers. Without CACHE_URL that is the database cache (its table is made by the release step and bin/run);
# Redis (`rediscache://…`) when set. A per-process cache with DEBUG off fails the deploy check.
CACHES = {"default": env.cache("CACHE_URL", default="dbcache://storefront_cache")}
# Sessions live in the database (Django's `db` engine): a cache outage loses none.
SESSION_ENGINE = "django.contrib.sessions.backends.db"
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    # The cache is an optimisation, never a dependency of a page: while Redis cannot be reached each process serves
    # from its own memory and says so in the log, and returns to Redis by itself (storefront/resilience/cache.py).
    CACHES["default"]["BACKEND"] = "storefront.resilience.cache.FallbackRedisCache"
    # With Redis, a signed-in page reads its session from Redis (Django's `cached_db` engine) through copies that
    # live a minute at most and are neither kept nor read while Redis is away
    # (storefront.resilience.cache.SessionCopiesCache): a session ended while a copy could not be deleted is gone within
    # that minute. With the database cache a copy would cost as much to read as the session row, so there is none.
    CACHES["sessions"] = {**CACHES["default"], "BACKEND": "storefront.resilience.cache.SessionCopiesCache"}
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    SESSION_CACHE_ALIAS = "sessions"
# The layout's fixed parts ({% cache %} in base.html), drawn once per process for each language, brand and visitor
# state they name instead of on every page (about a millisecond of every page, bench/profile_search.py). Kept in
# the process, never in the shared cache: a round trip would cost what it saves. With DEBUG on, templates may
# change while the server runs, so nothing is kept.
CACHES["template_fragments"] = {
    "BACKEND": "django.core.cache.backends.dummy.DummyCache"
    if DEBUG
    else "django.core.cache.backends.locmem.LocMemCache",
    "LOCATION": "template-fragments",
    "TIMEOUT": None,
    "OPTIONS": {"MAX_ENTRIES": 2000},
}

# The console backend prints every email, password-reset links included, into the logs: production must name a
# real backend.
_EMAIL_URL = env.str("EMAIL_URL", default="")
if not _EMAIL_URL or _EMAIL_URL.split(":", 1)[0] in ("consolemail", "filemail", "memorymail"):
    _refuse_in_production(
        "EMAIL_URL must name a real mail backend when DJANGO_DEBUG is off, e.g. smtp+tls://user:pass@host:587."
    )
if _EMAIL_URL:
    EMAIL_CONFIG = env.email_url_config(_EMAIL_URL)
    vars().update(EMAIL_CONFIG)
else:
    # Development without a mail server: emails are kept in the database and shown on the mailbox page
    # (/mailbox/, linked from the test banner), so a verification link can be clicked. Never with DEBUG off.
    EMAIL_BACKEND = "storefront.background.mailbox.MailboxBackend"
# Seconds the worker waits on the mail server per step of a send: a server that hangs fails that send (retried by
# the outbox) instead of holding the worker.
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=20)
# Sender of customer emails. Without a display name ("Acme <noreply@acme.example>") the store's name is used as it
# (storefront/site/brand.py: from_email).
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="noreply@localhost")

AUTH_PASSWORD_VALIDATORS = [
    # The provider refuses other passwords; first, so its rules are listed before the generic ones.
    {"NAME": "accounts.security.passwords.ProviderPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "orders"
LOGOUT_REDIRECT_URL = "home"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
    # Signs nobody in; sessions signed in before may name it (accounts/backends.py).
    "accounts.backends.SignedInUserBackend",
]

# --- Sign-in, signup, verification, two-factor (django-allauth) -------------------------------------------------
ACCOUNT_ADAPTER = "accounts.signup.adapter.AccountAdapter"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_UNIQUE_EMAIL = True
# Signing in works before the address is confirmed (the cart and the account page are there); buying does not:
# the provider customer is created only once the address is confirmed (accounts/signup/verification.py).
ACCOUNT_EMAIL_VERIFICATION = "optional"
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = False
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_SESSION_REMEMBER = None
ACCOUNT_CHANGE_EMAIL = True
ACCOUNT_FORMS = {
    "reauthenticate": "accounts.forms.PasswordAndCodeReauthenticateForm",
    "add_email": "accounts.forms.CustomerAddEmailForm",
}
# A reset asked for an address with no account sends nothing (no mail anyone could make us send to anybody).
ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS = False
# Notices of password, email and two-factor changes (sent through the worker by the adapter).
ACCOUNT_EMAIL_NOTIFICATIONS = True
# Changing the email address asks for the password again (turning two-factor off always does: allauth.mfa).
ACCOUNT_REAUTHENTICATION_REQUIRED = True
ACCOUNT_REAUTHENTICATION_TIMEOUT = env.int("ACCOUNT_REAUTHENTICATION_TIMEOUT", default=300)
# Email subjects start with "[STORE_NAME] " (accounts/signup/adapter.py); the authenticator app's label is set below.
# Failed sign-ins (wrong passwords and two-factor codes) are limited by accounts/security/signin_limits.py, so that an
# attacker cannot lock the owner out: per address (`/ip`) and per account and address (`/key`), and per account from
# every address, far higher, which slows (one try a minute per address) rather than locks, and emails the owner and
# staff. allauth's own `login_failed` limit is off: these replace it. allauth's syntax: amount/period[/per].
RATE_LIMIT_LOGIN_FAILED = env.str("RATE_LIMIT_LOGIN_FAILED", default="20/15m/ip,5/15m/key")
RATE_LIMIT_LOGIN_ACCOUNT = env.str("RATE_LIMIT_LOGIN_ACCOUNT", default="100/15m")
for _name, _rates in (
    ("RATE_LIMIT_LOGIN_FAILED", RATE_LIMIT_LOGIN_FAILED),
    ("RATE_LIMIT_LOGIN_ACCOUNT", RATE_LIMIT_LOGIN_ACCOUNT),
):
    if not all(re.fullmatch(r"\s*\d+/\d*[smhd]?(/(ip|key))?\s*", part) for part in _rates.split(",") if part.strip()):
        raise ImproperlyConfigured(
            f"{_name} must be rates like 20/15m/ip,5/15m/key (amount/period with s, m, h or d; per ip or key)."
        )
ACCOUNT_RATE_LIMITS = {
    "login_failed": "",
    "login": "30/m/ip",
    "confirm_email": "1/3m/key",
    "reset_password": "20/m/ip,5/5m/key",
    "reset_password_from_key": "20/m/ip",
    "change_password": "5/m/user",
    "manage_email": "10/m/user",
    "reauthenticate": "10/5m/user",
}
MFA_ADAPTER = "accounts.signup.adapter.MFAAdapter"
# The two-factor step at sign-in, under our sign-in limits (accounts/security/signin_limits.py), not allauth's lockout.
MFA_FORMS = {"authenticate": "accounts.forms.LimitedAuthenticateForm"}
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes", "webauthn"]
# A code from the authenticator's previous or next 30-second window is accepted too (RFC 6238's allowance for
# clocks and typing): with none, a code typed as its window closes is refused though the customer did nothing wrong.
MFA_TOTP_TOLERANCE = 1
MFA_PASSKEY_LOGIN_ENABLED = True
# Browsers allow WebAuthn on http only for localhost; the test server is plain http.
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = DEBUG

LANGUAGE_CODE = "en"
# The languages the storefront ships a catalogue for (locale/<code>/LC_MESSAGES/django.po); the customer picks one
# in the footer, otherwise the browser's Accept-Language decides. Adding one: docs/languages.md.
LANGUAGES = [
    ("en", "English"),
    ("es", "Español"),
    ("fr", "Français"),
    ("de", "Deutsch"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Dates are shown with `|date:"DATE_FORMAT"`: each language's own format, with the storefront's English one here.
FORMAT_MODULE_PATH = ["storefront.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [
    BASE_DIR / "static",
    # htmx is installed from the npm registry (package.json) at setup time, never copied into the repo.
    ("vendor/htmx", BASE_DIR / "node_modules" / "htmx.org" / "dist"),
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# --- The reseller's brand and legal identity -------------------------------------------------------------
# The shop's name, shown to customers (header, page titles, emails) and at the top of the staff admin.
STORE_NAME = env.str("STORE_NAME", default="Domain Store")
# A logo shown in the header beside the name: an absolute URL or a path under static/ (empty: the name only).
STORE_LOGO_URL = env.str("STORE_LOGO_URL", default="")
# The brand colour (#rrggbb) of links and buttons; one that would read below 4.5:1 on white is refused at start.
STORE_PRIMARY_COLOR = env.str("STORE_PRIMARY_COLOR", default="")
# The legal entity selling the domains and its postal address ("\n" between lines): on receipts and credit notes,
# in the footer and the legal pages. Default: the store's name, no address.
STORE_LEGAL_NAME = env.str("STORE_LEGAL_NAME", default=STORE_NAME)
STORE_LEGAL_ADDRESS = env.str("STORE_LEGAL_ADDRESS", default="").replace("\\n", "\n")
# What the e-invoices (docs/e-invoices.md) carry of the seller besides: its country (ISO 3166 code; empty: the VAT
# number's prefix, and without either no e-invoice is made), post code, city and a telephone number (XRechnung asks
# for the last three).
STORE_LEGAL_COUNTRY = env.str("STORE_LEGAL_COUNTRY", default="").upper()
STORE_LEGAL_POSTCODE = env.str("STORE_LEGAL_POSTCODE", default="")
STORE_LEGAL_CITY = env.str("STORE_LEGAL_CITY", default="")
STORE_LEGAL_PHONE = env.str("STORE_LEGAL_PHONE", default="")
# Where customers reach a person: shown in the footer and wherever a page says "contact support".
SUPPORT_EMAIL = env.str("SUPPORT_EMAIL", default="")
SUPPORT_URL = env.str("SUPPORT_URL", default="")
MFA_TOTP_ISSUER = STORE_NAME
# django.contrib.sites (needed by flatpages, the legal pages): one site, whose domain and name follow SITE_URL and
# STORE_NAME at every migrate (storefront/apps.py).
SITE_ID = 1

# The provider's own countries-and-states file (JSON, its format); empty: built from pycountry and phonenumbers.
COUNTRIES_FILE = env.str("COUNTRIES_FILE", default="")

# --- The provider -------------------------------------------------------------------------------------------
# Without a real key the provider is the sandbox: a separate small Django project (`python -m sandbox`) that
# bin/run starts beside this server and the test session starts for itself; it is known here only by its URL.
PORT = env.int("PORT", default=8000)
RESELLER_API_KEY = env.str("RESELLER_API_KEY", default="")
RESELLER_SANDBOX = env.bool("RESELLER_SANDBOX", default=not RESELLER_API_KEY)
if not RESELLER_API_KEY and not (RESELLER_SANDBOX and "RESELLER_SANDBOX" in env):
    # A production server that silently fell back to the sandbox would take orders it never places.
    _refuse_in_production(
        "With DJANGO_DEBUG off, set RESELLER_API_KEY, or RESELLER_SANDBOX=true for a demo deployment."
    )
if RESELLER_SANDBOX and not RESELLER_API_KEY:
    # The sandbox's demo partner answers to this key (`sandbox_seed` creates it). It is not a secret: it only
    # ever opens a sandbox.
    RESELLER_API_KEY = "test_sandbox_demo"
SANDBOX_URL = env.str("SANDBOX_URL", default="http://127.0.0.1:8001").rstrip("/")
RESELLER_BASE_URL = env.str("RESELLER_BASE_URL", default=SANDBOX_URL if RESELLER_SANDBOX else "")
RESELLER_METASEARCH_URL = env.str(
    "RESELLER_METASEARCH_URL", default=f"{SANDBOX_URL}/metasearch" if RESELLER_SANDBOX else ""
)
RESELLER_PANEL_URL = env.str("RESELLER_PANEL_URL", default=f"{SANDBOX_URL}/panel" if RESELLER_SANDBOX else "")
if not RESELLER_SANDBOX and not (RESELLER_API_KEY and RESELLER_BASE_URL and RESELLER_METASEARCH_URL):
    raise ImproperlyConfigured(
        "With RESELLER_SANDBOX off, set RESELLER_API_KEY, RESELLER_BASE_URL and RESELLER_METASEARCH_URL."
    )
# Seconds. Connect is short (a dead host should fail fast); read covers the provider's slowest endpoint while
# keeping a page that needs two calls (renew: listing, then renew) under a PaaS router's 30 s request limit.
RESELLER_CONNECT_TIMEOUT = env.float("RESELLER_CONNECT_TIMEOUT", default=3.05)
RESELLER_READ_TIMEOUT = env.float("RESELLER_READ_TIMEOUT", default=10.0)
RESELLER_GET_RETRIES = env.int("RESELLER_GET_RETRIES", default=2)
# MetaSearch answers as the customer types; past this, search falls back to the availability endpoint.
RESELLER_SEARCH_READ_TIMEOUT = env.float("RESELLER_SEARCH_READ_TIMEOUT", default=4.0)
# MetaSearch's AI suggestions take 8 to 17 s on a cache miss (the provider's demo allows 25 s). They are asked for
# in a second request of their own, so only that block waits; keep it under a PaaS router's 30 s request limit.
RESELLER_AI_READ_TIMEOUT = env.float("RESELLER_AI_READ_TIMEOUT", default=25.0)
# One request's provider work is bounded: at most this many calls (a review re-checks each of
# up to 20 cart lines), and no call started or still waited for past this many seconds, below a router's 30 s.
REQUEST_PROVIDER_CALLS_MAX = env.int("REQUEST_PROVIDER_CALLS_MAX", default=30)
REQUEST_PROVIDER_DEADLINE = env.float("REQUEST_PROVIDER_DEADLINE", default=27.0)
# Provider calls in flight per process at most; beyond it calls fail fast. Keep it below the threads per worker
# (GUNICORN_THREADS, Procfile) so a slow provider never occupies every thread.
RESELLER_MAX_CONCURRENT_CALLS = env.int("RESELLER_MAX_CONCURRENT_CALLS", default=12)
# After this many consecutive failures the gateway fails fast for RESELLER_BREAKER_SECONDS, then tries again.
RESELLER_BREAKER_FAILURES = env.int("RESELLER_BREAKER_FAILURES", default=5)
RESELLER_BREAKER_SECONDS = env.float("RESELLER_BREAKER_SECONDS", default=30.0)

# --- The provider: spellings, MetaSearch key, rate limits ------------------------------------------------------
# The provider's docs write the base URL with and without /api/v1, and MetaSearch's with /v1/search: both work.
# MetaSearch is documented under two names and hosts, the same GET /v1/search: https://metasearch.namify.host (the
# demo's) and "SuperSonic", https://supersonic.namify.host. Set either here; nothing else names the host.
RESELLER_BASE_URL = RESELLER_BASE_URL.strip().rstrip("/").removesuffix("/api/v1").rstrip("/")
RESELLER_METASEARCH_URL = RESELLER_METASEARCH_URL.strip().rstrip("/").removesuffix("/v1/search").rstrip("/")
# MetaSearch may use a token of its own (the provider's demo does); empty: the main key (the gateway decides).
RESELLER_METASEARCH_KEY = env.str("RESELLER_METASEARCH_KEY", default="")
if not RESELLER_SANDBOX and not RESELLER_PANEL_URL:
    # Without it the control-panel hand-off would redirect to our own /auto-login?token=…
    raise ImproperlyConfigured("With RESELLER_SANDBOX off, set RESELLER_PANEL_URL (https://<you>.namify.tech).")
# The provider's documented limits per key, across all our instances (counted in the shared cache): requests
# per second for search (MetaSearch, availability, suggestions) and for everything else. 0: no limit.
RESELLER_SEARCH_RATE_LIMIT = env.int("RESELLER_SEARCH_RATE_LIMIT", default=50)
RESELLER_RATE_LIMIT = env.int("RESELLER_RATE_LIMIT", default=10)
# The provider's "coming soon" endpoints the store may use (storefront/site/capabilities.py): none for the real provider
# until it ships them (its placeholders answer 200 and do nothing), all of them with the sandbox, which has them.
RESELLER_CAPABILITIES = [
    name.strip().lower()
    for name in env.list("RESELLER_CAPABILITIES", default=list(CAPABILITIES) if RESELLER_SANDBOX else [])
    if name.strip()
]
if unknown_capabilities(RESELLER_CAPABILITIES):
    raise ImproperlyConfigured(
        f"RESELLER_CAPABILITIES names {', '.join(unknown_capabilities(RESELLER_CAPABILITIES))}, which this store "
        f"does not know; the known capabilities are {', '.join(CAPABILITIES)} (comma-separated, or empty for none)."
    )

# --- Retail prices (pricing/) ---------------------------------------------------------------------------------
# The default rule over the provider's cost, for every TLD and operation staff have no rule for in the admin:
# cost + PRICE_MARKUP_PERCENT % + PRICE_MARKUP_FIXED per year (in STORE_CURRENCY), then PRICE_ROUNDING
# ("none", or "99": up to the next .99). Read as strings: money is Decimal, never float.
try:
    PRICE_MARKUP_PERCENT = Decimal(env.str("PRICE_MARKUP_PERCENT", default="0"))
    PRICE_MARKUP_FIXED = Decimal(env.str("PRICE_MARKUP_FIXED", default="0"))
except InvalidOperation as err:
    raise ImproperlyConfigured("PRICE_MARKUP_PERCENT and PRICE_MARKUP_FIXED must be numbers, e.g. 20 or 1.50.") from err
PRICE_ROUNDING = env.str("PRICE_ROUNDING", default="none").strip().lower()
if (
    not (PRICE_MARKUP_PERCENT.is_finite() and PRICE_MARKUP_FIXED.is_finite())
    or min(PRICE_MARKUP_PERCENT, PRICE_MARKUP_FIXED) < 0
):
    # A negative default would sell every domain below cost.
    raise ImproperlyConfigured("PRICE_MARKUP_PERCENT and PRICE_MARKUP_FIXED must be 0 or more.")
if PRICE_ROUNDING not in ("none", "99"):
    raise ImproperlyConfigured('PRICE_ROUNDING must be "none" or "99".')
# What customers pay in (ISO 4217). The provider charges USD; another currency needs a rate set in the admin.
STORE_CURRENCY = env.str("STORE_CURRENCY", default="USD").strip().upper()
# Other currencies are enabled in the admin (Prices > Currencies), each at a rate staff set or that this feed updates:
# a daily reference-rate XML in the ECB's format, e.g.
# https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml. Empty: no feed (rates are set by hand).
CURRENCY_FEED_URL = env.str("CURRENCY_FEED_URL", default="")
CURRENCY_FEED_TIMEOUT = env.float("CURRENCY_FEED_TIMEOUT", default=10.0)
# Staff are mailed when a rate the feed should update is older than this (the ECB skips weekends and holidays).
CURRENCY_RATE_STALE_HOURS = env.int("CURRENCY_RATE_STALE_HOURS", default=96)

# --- Payments (Stripe) -------------------------------------------------------------------------------------
# billing/ is the only code that talks to Stripe, through its SDK at STRIPE_API_BASE. Without a Stripe key (and
# with the provider's sandbox) it talks to the payment sandbox (`sandbox/stripe_api`, served by the same sandbox
# process under /stripe/) with that sandbox's published test key and webhook secret.
# Tax (pricing/tax.py; the store's registration and rates are set in the admin). PRICES_INCLUDE_TAX: the prices
# shown and quoted include the customer's tax ("incl. VAT"), else tax is added on top ("+ VAT").
PRICES_INCLUDE_TAX = env.bool("PRICES_INCLUDE_TAX", default=False)
# The EU's VIES service is asked about a business customer's VAT number when it is saved, and reverse charge rests
# only on a number it confirmed (off: format and check digits only, for development). On by default in production.
# VIES being away never blocks a sale: the number is recorded as "not checked" and the sale is charged VAT, with a
# note that it is refunded once the number is confirmed (staff: Payments, filter "VAT to refund").
TAX_VIES_CHECK = env.bool("TAX_VIES_CHECK", default=not DEBUG)
TAX_VIES_URL = env.str("TAX_VIES_URL", default="https://ec.europa.eu/taxation_customs/vies/rest-api").rstrip("/")
# What the payment service keeps of each card payment (percent of it, plus a fixed amount in STORE_CURRENCY): a
# promotion capped "at cost" stops at the cost plus this fee (pricing/fees.py). Stripe's standard card pricing by
# default; set your account's rate.
try:
    PAYMENT_FEE_PERCENT = Decimal(env.str("PAYMENT_FEE_PERCENT", default="2.9"))
    PAYMENT_FEE_FIXED = Decimal(env.str("PAYMENT_FEE_FIXED", default="0.30"))
except InvalidOperation as err:
    raise ImproperlyConfigured("PAYMENT_FEE_PERCENT and PAYMENT_FEE_FIXED must be numbers, e.g. 2.9 and 0.30.") from err
if not (PAYMENT_FEE_PERCENT.is_finite() and PAYMENT_FEE_FIXED.is_finite()) or not (
    0 <= PAYMENT_FEE_PERCENT < 100 and PAYMENT_FEE_FIXED >= 0
):
    raise ImproperlyConfigured("PAYMENT_FEE_PERCENT must be from 0 to under 100, PAYMENT_FEE_FIXED 0 or more.")
PAYMENTS_DISABLED = env.bool("PAYMENTS_DISABLED", default=False)
STRIPE_SECRET_KEY = env.str("STRIPE_SECRET_KEY", default="")
STRIPE_WEBHOOK_SECRET = env.str("STRIPE_WEBHOOK_SECRET", default="")
_PAYMENT_SANDBOX = not STRIPE_SECRET_KEY and RESELLER_SANDBOX
if _PAYMENT_SANDBOX:
    # Not secrets: they only ever open or sign a local payment sandbox.
    STRIPE_SECRET_KEY = "sk_test_payment_sandbox"
    STRIPE_WEBHOOK_SECRET = STRIPE_WEBHOOK_SECRET or "whsec_sandbox_local"
STRIPE_API_BASE = env.str(
    "STRIPE_API_BASE", default=f"{SANDBOX_URL}/stripe" if _PAYMENT_SANDBOX else "https://api.stripe.com"
).rstrip("/")
_LIVE_PROVIDER_KEY = RESELLER_API_KEY.removeprefix("nk_").startswith("live_")
if _LIVE_PROVIDER_KEY and not PAYMENTS_DISABLED and not STRIPE_SECRET_KEY:
    # Selling real domains with no way to take payment would register them unpaid.
    _refuse_in_production(
        "With a live RESELLER_API_KEY, set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, or PAYMENTS_DISABLED=true."
    )
if STRIPE_SECRET_KEY and not _PAYMENT_SANDBOX and not STRIPE_WEBHOOK_SECRET and not PAYMENTS_DISABLED:
    _refuse_in_production("With STRIPE_SECRET_KEY set, set STRIPE_WEBHOOK_SECRET (whsec_…) too.")
# Seconds. A capture whose answer takes longer is read back from Stripe, never repeated blindly.
STRIPE_CONNECT_TIMEOUT = env.float("STRIPE_CONNECT_TIMEOUT", default=3.05)
STRIPE_READ_TIMEOUT = env.float("STRIPE_READ_TIMEOUT", default=20.0)
# The payment service's circuit breaker: after this many consecutive failures (unreachable, 5xx) its calls fail fast
# for this many seconds, then one is tried. Its own: a Stripe outage never refuses a provider call, nor the reverse.
STRIPE_BREAKER_FAILURES = env.int("STRIPE_BREAKER_FAILURES", default=5)
STRIPE_BREAKER_SECONDS = env.float("STRIPE_BREAKER_SECONDS", default=30.0)
# The reconciler asks Stripe about a payment still waiting (not paid, not settled) this many minutes after it began
# or was last touched: a customer who paid and closed the tab while the webhook was lost, a worker that died.
PAYMENT_RECONCILE_AFTER_MINUTES = env.int("PAYMENT_RECONCILE_AFTER_MINUTES", default=3)
# Stripe lets an uncaptured authorisation lapse at the deadline its charge states (capture_before): staff are mailed
# about one still held this many hours before it (once per payment), so a line left unknown is settled in time.
PAYMENT_CAPTURE_ALERT_HOURS = env.int("PAYMENT_CAPTURE_ALERT_HOURS", default=24)

# --- Security ------------------------------------------------------------------------------------------------
# No inline scripts or styles anywhere, so neither 'unsafe-inline' nor 'unsafe-eval' is needed (htmx runs with
# allowEval off). Forms may post to ourselves only; the control-panel hand-off redirects to the panel's origin,
# checkout to the payment page's.
_panel_origin = "{0.scheme}://{0.netloc}".format(urlparse(RESELLER_PANEL_URL)) if RESELLER_PANEL_URL else ""
# Checkout's POST answers 303 to the payment page, and form-action governs where a form's redirects may lead:
# Stripe Checkout's own origin, or the payment sandbox's.
_payment_origin = (
    "{0.scheme}://{0.netloc}".format(urlparse(STRIPE_API_BASE)) if _PAYMENT_SANDBOX else "https://checkout.stripe.com"
)
_logo = urlparse(STORE_LOGO_URL)
_logo_origin = f"{_logo.scheme}://{_logo.netloc}" if _logo.scheme in ("http", "https") else ""
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        # A logo given as an absolute URL is loaded from its own origin.
        "img-src": ["'self'", "data:", *([_logo_origin] if _logo_origin else [])],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": [
            "'self'",
            *([_panel_origin] if _panel_origin else []),
            *([_payment_origin] if not PAYMENTS_DISABLED and _payment_origin != _panel_origin else []),
        ],
    }
}
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
# Seconds a MetaSearch answer is reused for the same search term (identical concurrent searches share one call).
SEARCH_CACHE_SECONDS = env.int("SEARCH_CACHE_SECONDS", default=60)

# How many proxies in front of us append to X-Forwarded-For (the PaaS router: usually 1). 0 trusts no header
# and uses the connection's address; throttles key on the resulting client address.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
# Requests allowed per window (seconds), counted in the shared cache; "0/60" switches a scope off.
# Env: RATE_LIMIT_SEARCH=120/60 and so on.
RATE_LIMITS = {
    scope: tuple(int(part) for part in env.str(f"RATE_LIMIT_{scope.upper()}", default=default).split("/", 1))
    for scope, default in {
        "search": "120/60",  # per address; typing sends a request per pause
        "signup": "20/3600",  # per address, submitted signups
        "panel": "20/600",  # per customer, control-panel hand-offs
        "transfer_code": "10/900",  # per customer, transfer-code reveals (wrong passwords are limited apart)
        "cart": "60/60",  # per address, Add to cart (each may ask the provider for the price)
        "checkout": "30/60",  # per address, checkout reviews and Buy (a review re-checks every line)
        "admin_login": "10/900",  # per address, staff sign-in attempts on /admin/login/
        "renew": "30/600",  # per customer, renewal confirmations (each reads the domains at the provider)
        "promotion_code": "20/600",  # per address, promotion codes tried in the cart (no guessing from a list)
        "tax_number": "10/600",  # per customer, VAT numbers saved (each may ask VIES)
        # per address, the provider's server errors on what one caller typed (a search): past it that caller's
        # searches are refused unsent for the window; the shared breaker counts one of them at most
        # (storefront/gateway/input_faults.py)
        "provider_input_faults": "3/300",
        "api": "600/60",  # per API key, every request to /api/v1/ (docs/api.md)
    }.items()
}
# /healthz and /readyz are probed by the platform over plain HTTP inside its network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]

# --- Background work (the worker and the scheduler; docs/deployment.md) ---------------------------------------
# Tasks are rows in our own database (django-tasks-db): no broker; `manage.py run_worker` runs them, and any
# number of workers may run at once on PostgreSQL (rows are claimed under a lock). SQLite: run one worker.
# Three queues, most urgent first (storefront/queues.py): paid, default, bulk; a worker takes the first that has work.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": list(QUEUES)}}
# Seconds a running task's lease lasts (renewed every third of it by its worker, `manage.py run_worker`): a task whose
# worker died is run again this long after its last renewal (storefront/background/worker.py). Short, so paid work a
# killed worker held runs again within a minute.
TASK_LEASE_SECONDS = env.int("TASK_LEASE_SECONDS", default=30)
# Absolute address of the site, for links in emails sent by the worker (it has no request to ask). Production must
# name its public address: a default (or any loopback address) would send customers links to their own machine, so no
# address could be confirmed and nothing bought. A loopback address is accepted only when the site itself answers to
# loopback names alone (a production-like run on one machine, as bench/ starts), where such links do work.
SITE_URL = env.str("SITE_URL", default="").strip().rstrip("/")
if not SITE_URL:
    _refuse_in_production(
        "SITE_URL must be set to the store's public address when DJANGO_DEBUG is off, e.g. "
        "SITE_URL=https://shop.example.com: the links in the emails the worker sends (address confirmation, "
        "password reset) are made from it."
    )
    SITE_URL = f"http://127.0.0.1:{PORT}"
elif is_loopback_url(SITE_URL) and not all(is_loopback_host(host) for host in ALLOWED_HOSTS):
    _refuse_in_production(
        f"SITE_URL is {SITE_URL}, an address of this machine that no customer can open: set it to the store's "
        "public address, e.g. SITE_URL=https://shop.example.com."
    )
# allauth's links (address confirmation, password reset) use the site's own scheme.
ACCOUNT_DEFAULT_HTTP_PROTOCOL = urlparse(SITE_URL).scheme or "https"
# Staff alerts (registrations needing attention, unconfirmed signups, failed syncs) go to these addresses.
# Env: ADMINS="Ops <ops@example.com>,noc@example.com".
ADMINS = [(name, address) for name, address in getaddresses(env.list("ADMINS", default=[])) if address]
# Acting as a customer (django-hijack, accounts/staff/acting.py): who may, and no banner of hijack's own (its inline
# script breaks the CSP; base.html draws ours).
HIJACK_PERMISSION_CHECK = "accounts.staff.acting.may_act_as"
# Staff need two-factor sign-in for the admin in every mode but this one login, and only with DJANGO_DEBUG on: bin/run
# names its demo staff login here, so a demo opens the admin at once (accounts/security/middleware.py).
STAFF_TWO_FACTOR_EXEMPT = env.str("STAFF_TWO_FACTOR_EXEMPT", default="")
HIJACK_INSERT_BEFORE = None
# A registration whose answer was lost stays "could not confirm" (holding the name, reconciled from the order
# listing) this long before it may be declared not registered. Hours: the provider may still be working on it.
REGISTRATION_UNKNOWN_LIMIT_HOURS = env.float("REGISTRATION_UNKNOWN_LIMIT_HOURS", default=24.0)
# A line declared not registered keeps being looked for in the listing this long, and flips to registered if
# it appears.
REGISTRATION_WATCH_DAYS = env.int("REGISTRATION_WATCH_DAYS", default=14)
# Order sync (domains/orders/sync.py): provider calls per second at most, all workers together (the provider allows
# 10/s for non-search calls; leave headroom for the web processes); every customer's listing is read every
# ORDER_SYNC_EVERY_HOURS_FAR hours, and an order within ORDER_SYNC_NEAR_DAYS of its expiry (before or after) on its
# own every ORDER_SYNC_EVERY_HOURS_NEAR hours.
ORDER_SYNC_REQUESTS_PER_SECOND = env.float("ORDER_SYNC_REQUESTS_PER_SECOND", default=4.0)
ORDER_SYNC_EVERY_HOURS_FAR = env.float("ORDER_SYNC_EVERY_HOURS_FAR", default=24.0)
ORDER_SYNC_EVERY_HOURS_NEAR = env.float("ORDER_SYNC_EVERY_HOURS_NEAR", default=2.0)
ORDER_SYNC_NEAR_DAYS = env.int("ORDER_SYNC_NEAR_DAYS", default=3)
# Auto-renew: domains switched to it are renewed (and charged on the saved card) this many days before expiry.
AUTO_RENEW_DAYS_BEFORE = env.int("AUTO_RENEW_DAYS_BEFORE", default=14)
# Renewal reminders: days before expiry (negative: after). Env: RENEWAL_REMINDER_DAYS=60,30,7,1,-3
RENEWAL_REMINDER_DAYS = sorted(
    {int(d) for d in env.list("RENEWAL_REMINDER_DAYS", default=["60", "30", "7", "1", "-3"])}
)
# Background emails that fail are tried again after 1, 2, 4 ... minutes, up to this many attempts (the
# periodic sweep keeps trying after that, every few minutes).
TASK_RETRY_ATTEMPTS = env.int("TASK_RETRY_ATTEMPTS", default=6)
# Paid work (the paid queue: registering what a customer paid for, capturing) is tried again every 15 seconds for
# this many minutes of an outage, so it resumes within a minute of the service coming back
# (storefront/background/retries.py).
TASK_PAID_RETRY_MINUTES = env.float("TASK_PAID_RETRY_MINUTES", default=60.0)

# --- Metrics and readiness (docs/operations.md) --------------------------------------------------------------
# /metrics answers only a request with `Authorization: Bearer <METRICS_TOKEN>` (404 otherwise, and always while it is
# empty). With a token, every process on the host (gunicorn's workers, the task workers) writes its figures to
# PROMETHEUS_MULTIPROC_DIR, a directory they share, and a scrape adds them up (storefront/observability/metrics.py); the
# default is one under the system's temporary directory. gunicorn.conf.py sets the same default before its workers
# start.
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
if METRICS_TOKEN:
    _metrics_dir = Path(
        env.str("PROMETHEUS_MULTIPROC_DIR", default=str(Path(tempfile.gettempdir()) / "storefront-metrics"))
    )
    _metrics_dir.mkdir(parents=True, exist_ok=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(_metrics_dir)
# /readyz reports the provider's state from the last real call of the process; with none this recent, it asks the
# provider itself, at most once per this many seconds per process (storefront/observability/health.py).
READYZ_PROVIDER_PROBE_SECONDS = env.float("READYZ_PROVIDER_PROBE_SECONDS", default=60.0)

DEFAULT_EXCEPTION_REPORTER_FILTER = "storefront.observability.reporting.KeyScrubbingExceptionReporterFilter"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Every line is one JSON object (a log platform parses the fields; nobody greps prose).
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        }
    },
    "filters": {"require_debug_false": {"()": "django.utils.log.RequireDebugFalse"}},
    "handlers": {
        # In a web worker, written by a thread of its own (gunicorn.conf.py; storefront/observability/log_handlers.py
        # says why).
        "stdout": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stdout"},
        # Django's mail to ADMINS on a server error, throttled (storefront/observability/error_reports.py); sends
        # nothing while ADMINS is empty.
        "mail_admins": {
            "level": "ERROR",
            "filters": ["require_debug_false"],
            "class": "storefront.observability.error_reports.ThrottledAdminEmailHandler",
        },
    },
    "root": {"handlers": ["stdout"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        # Named so that Django's default plain-text console handlers (DEBUG only) are dropped: their records
        # reach the JSON handler above instead of being written twice, once as prose. INFO as Django has it:
        # below that, django.template writes whole template contexts (passwords and tokens included).
        # A view's unhandled exception is logged by django.request (a child): mailed to ADMINS as Django does.
        "django": {"level": "INFO", "handlers": ["mail_admins"]},
        # Each failed task, with its traceback (storefront/observability/error_reports.py): mailed the same way.
        "storefront.task_failures": {"handlers": ["mail_admins"]},
        "py.warnings": {},
        "django.server": {"level": "WARNING"},
        "django.utils.autoreload": {"level": "WARNING"},
        # WeasyPrint (receipt PDFs) logs every CSS rule it skips (the screen-only media queries) and each rendering
        # step: noise on every PDF. Its errors still come through.
        "weasyprint": {"level": "ERROR"},
    },
}
# Python's warnings (a naive datetime saved, say) would otherwise go to stderr as prose: as records on the
# "py.warnings" logger they are JSON lines too.
logging.captureWarnings(True)

# Errors reach a person (docs/operations.md "Errors"). The error tracker (Sentry or a compatible service) when
# SENTRY_DSN is set; events are scrubbed of secrets and personal data before they leave
# (storefront/observability/error_reports.py).
SENTRY_DSN = env.str("SENTRY_DSN", default="")
SENTRY_ENVIRONMENT = env.str("SENTRY_ENVIRONMENT", default="development" if DEBUG else "production")
# The deploy's commit: the PaaS's own variable (SOURCE_VERSION at build, HEROKU_SLUG_COMMIT with dyno metadata),
# or GIT_REV / SENTRY_RELEASE set by hand.
_RELEASE_VARIABLES = ("SENTRY_RELEASE", "SOURCE_VERSION", "GIT_REV", "HEROKU_SLUG_COMMIT")
SENTRY_RELEASE = next((value for name in _RELEASE_VARIABLES if (value := env.str(name, default=""))), "")
# Days the provider call log (storefront.ProviderCall: our request id beside the provider's) is kept.
PROVIDER_CALL_LOG_DAYS = env.int("PROVIDER_CALL_LOG_DAYS", default=30)
# Outgoing webhooks (reseller_webhooks/addresses.py, docs/webhooks.md): on, an endpoint may be on loopback or a private
# network and plain http (development's and the tests' local receivers); off, only public https addresses, so an
# address typed in the admin cannot make the store call its own database, cache or the cloud's metadata service.
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env.bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", default=DEBUG)

if _PRODUCTION_REFUSALS:
    raise ImproperlyConfigured(" ".join(_PRODUCTION_REFUSALS))
