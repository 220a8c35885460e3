"""Settings for the test suite: production settings, with what a test run on plain HTTP needs."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-secret-key")
os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "false")
os.environ.setdefault("DJANGO_SECURE_HSTS_SECONDS", "0")
os.environ.pop("RESELLER_API_KEY", None)
os.environ.pop("RESELLER_SANDBOX", None)

from storefront.settings import *  # noqa: F403

SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "tests"}}
# Faults that hang must not slow the suite: the gateway gives up quickly in tests.
RESELLER_CONNECT_TIMEOUT = 1.0
RESELLER_READ_TIMEOUT = 2.0
# Serve static files straight from the finders (htmx from node_modules included) without collectstatic.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
