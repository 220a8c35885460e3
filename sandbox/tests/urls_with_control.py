"""The sandbox's URLs as the storefront's test session serves them: with the control endpoint mounted."""

from django.urls import include, path

from sandbox.urls import urlpatterns as served

urlpatterns = [
    *served,
    path("_control/stripe/", include("sandbox.stripe_api.control")),
    path("_control/", include("sandbox.control")),
]
