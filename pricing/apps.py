from django.apps import AppConfig


class PricingConfig(AppConfig):
    name = "pricing"
    verbose_name = "Prices"

    def ready(self) -> None:
        from pricing import checks, tasks  # noqa: F401  (registers its deploy check; schedules the daily price sync)
