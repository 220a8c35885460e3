from django.contrib import admin
from django.urls import include, path

from storefront import views
from storefront.ratelimit import rate_limit

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    # Django's admin login has no brute-force protection of its own: wrong guesses are limited per address.
    path("admin/login/", rate_limit("admin_login", methods=("POST",))(admin.site.login)),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("account/", include("accounts.account_urls")),
    path("", include("domains.urls")),
    path("", include("dns.urls")),
    path("", include("billing.urls")),
]
