from django.apps import AppConfig


class BillingConfig(AppConfig):
    name = "billing"
    verbose_name = "Payments"

    def ready(self) -> None:
        from billing import tasks  # noqa: F401  (schedules its periodic jobs)
