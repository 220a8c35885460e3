from django.apps import AppConfig


class DomainsConfig(AppConfig):
    name = "domains"

    def ready(self) -> None:
        # Each feature hands billing the kind of line it sells (billing.lines) and schedules its periodic jobs
        # (storefront.scheduler) when its module is imported: here, once, at start-up.
        from domains import tasks  # noqa: F401
        from domains.checkout import payments  # noqa: F401
        from domains.orders import payments as order_payments  # noqa: F401
