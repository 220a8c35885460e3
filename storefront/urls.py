from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.urls import include, path

from storefront import mailbox, views
from storefront.ratelimit import rate_limit

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("mailbox/", mailbox.mailbox, name="mailbox"),
    # Django's set_language: POST only, CSRF-checked, remembers the choice in a cookie and goes back to `next`.
    path("i18n/", include("django.conf.urls.i18n")),
    # Django's admin login has no brute-force protection of its own: wrong guesses are limited per address.
    # Staff sign in through the storefront's own sign-in (allauth: rate limits, two-factor); the admin's login
    # page sends there. Still limited per address, as every guess at a staff password would be.
    path("admin/login/", rate_limit("admin_login", methods=("POST",))(secure_admin_login(admin.site.login))),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("account/", include("accounts.account_urls")),
    path("", include("domains.urls")),
    path("", include("dns.urls")),
    path("", include("billing.urls")),
]
