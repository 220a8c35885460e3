from django.apps import AppConfig


class StripeApiConfig(AppConfig):
    name = "sandbox.stripe_api"
    label = "stripe_api"
    verbose_name = "Stripe (payment sandbox)"
