from django.contrib import admin
from django.urls import include, path

from storefront import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("", include("domains.urls")),
    path("", include("dns.urls")),
]
