from django.apps import AppConfig


class BillingConfig(AppConfig):
    name = "billing"
    verbose_name = "Payments"

    def ready(self) -> None:
        # emails registers the PDF attachment's maker; tasks schedules its jobs and registers the tasks that
        # billing/jobs.py enqueues.
        from billing import tasks  # noqa: F401
        from billing.documents import emails  # noqa: F401
