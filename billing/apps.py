from django.apps import AppConfig


class BillingConfig(AppConfig):
    name = "billing"
    verbose_name = "Payments"

    def ready(self) -> None:
        from billing import emails, tasks  # noqa: F401  (registers the PDF attachment's maker; schedules jobs)
