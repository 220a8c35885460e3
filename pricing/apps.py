from django.apps import AppConfig


class PricingConfig(AppConfig):
    name = "pricing"
    verbose_name = "Prices"

    def ready(self) -> None:
        from pricing import tasks  # noqa: F401  (schedules the daily price sync)
