"""The root URLs: site pages, health, legal pages, the admin, then each app's own.

Not the staff API's (/api/v1/): a request there is served with reseller_api/root_urls.py, which adds them to these
(reseller_api/middleware.py), so that a worker loads django-ninja and pydantic only once it is asked for the API."""

from allauth.account.decorators import secure_admin_login
from allauth.urls import urlpatterns as allauth_patterns
from django.contrib import admin
from django.contrib.flatpages import views as flatpages
from django.urls import include, path
from django.views.generic import RedirectView

from storefront import views
from storefront.background import mailbox
from storefront.requests.acting_rules import acting_allowed, library_patterns
from storefront.resilience.ratelimit import rate_limit
from storefront.site.legal import AGREEMENT_URL, PRIVACY_URL, TERMS_URL

# A database unreachable for a moment is a 503 that asks to try again, not a 500 (storefront/views.py).
handler500 = "storefront.views.server_error"

# allauth's pages staff may use while acting as a customer; the rest (password, email, two-factor) are refused.
ALLAUTH_WHILE_ACTING = frozenset({"account_login", "account_logout"})

urlpatterns = [
    path("", views.home, name="home"),
    path("brand.css", views.brand_stylesheet, name="brand_css"),
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("metrics", views.metrics, name="metrics"),
    # The legal pages are flatpages staff edit in the admin (storefront/site/legal.py).
    path(TERMS_URL[1:], acting_allowed(flatpages.flatpage), {"url": TERMS_URL}, name="legal_terms"),
    path(PRIVACY_URL[1:], acting_allowed(flatpages.flatpage), {"url": PRIVACY_URL}, name="legal_privacy"),
    path(AGREEMENT_URL[1:], acting_allowed(flatpages.flatpage), {"url": AGREEMENT_URL}, name="legal_agreement"),
    path("mailbox/", mailbox.mailbox, name="mailbox"),
    # The language form: Django's set_language (POST only, CSRF-checked, a cookie, back to `next`), which also
    # stores a signed-in customer's choice on their record (accounts/language.py).
    path("i18n/", include("accounts.language_urls")),
    # Django's admin login has no brute-force protection of its own: wrong guesses are limited per address.
    # Staff sign in through the storefront's own sign-in (allauth: rate limits, two-factor); the admin's login
    # page sends there. Still limited per address, as every guess at a staff password would be.
    path("admin/login/", rate_limit("admin_login", methods=("POST",))(secure_admin_login(admin.site.login))),
    # Staff change their password where customers do (allauth: its rules, re-authentication and notices).
    path("admin/password_change/", acting_allowed(RedirectView.as_view(pattern_name="account_change_password"))),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    # allauth's pages are refused while staff act as a customer, but for signing in and out (accounts/staff/acting.py).
    path("accounts/", include(library_patterns(allauth_patterns, allowed=ALLAUTH_WHILE_ACTING))),
    path("account/", include("accounts.account_urls")),
    path("", include("domains.urls")),
    path("", include("dns.urls")),
    path("", include("billing.urls")),
    path("", include("demand.urls")),
]
