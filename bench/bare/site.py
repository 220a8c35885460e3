"""The search benchmark's baseline: a bare Django project, as `django-admin startproject` makes it (its apps and
middleware, SQLite, DEBUG off), with one view that renders a 20-row template and nothing of the storefront.

`search_bench.py` runs it under the same gunicorn settings as the storefront and compares the storefront's cached
search with it. An anonymous request touches no database (no session cookie, no user read), like a cached search.
"""

import tempfile
from pathlib import Path

from django.conf import settings
from django.core.wsgi import get_wsgi_application
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path

settings.configure(
    DEBUG=False,
    SECRET_KEY="bare-bench-only",
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=[
        "django.contrib.admin",
        "django.contrib.auth",
        "django.contrib.contenttypes",
        "django.contrib.sessions",
        "django.contrib.messages",
        "django.contrib.staticfiles",
    ],
    MIDDLEWARE=[
        "django.middleware.security.SecurityMiddleware",
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.common.CommonMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "django.contrib.messages.middleware.MessageMiddleware",
        "django.middleware.clickjacking.XFrameOptionsMiddleware",
    ],
    TEMPLATES=[
        {
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "DIRS": [Path(__file__).parent],
            "APP_DIRS": True,
            "OPTIONS": {
                "context_processors": [
                    "django.template.context_processors.request",
                    "django.contrib.auth.context_processors.auth",
                    "django.contrib.messages.context_processors.messages",
                ]
            },
        }
    ],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": f"{tempfile.gettempdir()}/bare.sqlite3"}},
    STATIC_URL="static/",
    USE_TZ=True,
)

ROWS = [
    {"domain": f"example{i}.com", "price": "$12.99 first year, then $14.99/yr", "available": i % 3 != 0}
    for i in range(20)
]


def rows(request: HttpRequest) -> HttpResponse:
    return render(request, "rows.html", {"rows": ROWS, "q": request.GET.get("q", "")})


urlpatterns = [path("search/", rows), path("healthz", lambda request: HttpResponse("ok"))]
application = get_wsgi_application()
