"""Settings of the sandbox provider: a small Django project of its own, apart from the storefront.

It imitates the domain provider on a developer's machine and in the tests; it is never deployed as the
storefront is. Everything is read from `SANDBOX_*` environment variables with local defaults.
"""

import os
import tempfile
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent
REPO_DIR = BASE_DIR.parent

env = environ.Env()

DEBUG = env.bool("SANDBOX_DEBUG", default=False)
# The sandbox holds no one's secrets (its demo key is published in its README), so a fixed local default is fine.
SECRET_KEY = env.str("SANDBOX_SECRET_KEY", default="sandbox-local-only-secret-key-not-for-any-real-deployment")
ALLOWED_HOSTS = env.list("SANDBOX_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "sandbox",
    "sandbox.stripe_api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "sandbox.urls"
WSGI_APPLICATION = "sandbox.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env.db("SANDBOX_DATABASE_URL", default=f"sqlite:///{REPO_DIR / 'sandbox.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Many threads of one server write at once: wait for the write lock instead of failing at once, and take it
    # when a transaction starts so a read-then-write transaction never fails trying to upgrade.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
    # Its own tests: a file, not SQLite's shared in-memory database, which fails at once with "table is locked"
    # when threads write together (the rate-limit test does) where a file waits for the lock as a server's does.
    DATABASES["default"]["TEST"] = {"NAME": os.path.join(tempfile.gettempdir(), f"sandbox-tests-{os.getpid()}.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Customers' passwords are stored hashed, as the provider would. A test session may pick a fast hasher
# (SANDBOX_PASSWORD_HASHERS=django.contrib.auth.hashers.MD5PasswordHasher) so signups stay well inside its timeouts.
PASSWORD_HASHERS = env.list(
    "SANDBOX_PASSWORD_HASHERS",
    default=[
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
        "django.contrib.auth.hashers.Argon2PasswordHasher",
        "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
        "django.contrib.auth.hashers.ScryptPasswordHasher",
    ],
)

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = None
# The admin's own CSS and JS, served by WhiteNoise straight from the installed apps: no collectstatic step.
WHITENOISE_USE_FINDERS = True

# The demo partner that `sandbox_seed` creates answers to this key. It is not a secret: it only ever opens a
# local sandbox.
SANDBOX_DEMO_KEY = "test_sandbox_demo"
# The provider's own countries-and-states file (JSON, its format); empty: a list built from pycountry.
SANDBOX_COUNTRIES_FILE = env.str("SANDBOX_COUNTRIES_FILE", default="")
# The test-only control endpoint (`/_control/...`): only the storefront's test session switches it on.
SANDBOX_CONTROL = env.bool("SANDBOX_CONTROL", default=False)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"stdout": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["stdout"], "level": env.str("SANDBOX_LOG_LEVEL", default="INFO")},
    "loggers": {"django.server": {"level": "WARNING"}},
}

# The payment sandbox (sandbox/stripe_api): where it POSTs webhook events and the secret it signs them with. The
# secret is not a secret: it only ever signs a local sandbox's events. Staff can change both in its admin.
SANDBOX_STRIPE_WEBHOOK_URL = env.str("SANDBOX_STRIPE_WEBHOOK_URL", default="")
SANDBOX_STRIPE_WEBHOOK_SECRET = env.str("SANDBOX_STRIPE_WEBHOOK_SECRET", default="whsec_sandbox_local")
