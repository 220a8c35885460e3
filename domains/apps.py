from django.apps import AppConfig


class DomainsConfig(AppConfig):
    name = "domains"

    def ready(self) -> None:
        # Each feature hands billing the kind of line it sells (billing.ledger.lines) and schedules its periodic jobs
        # (storefront.background.scheduler) when its module is imported: here, once, at start-up.
        import domains.checkout.payments
        import domains.checkout.tasks
        import domains.orders.payments
        import domains.orders.privacy_payments
        import domains.orders.tasks
        import domains.tasks  # noqa: F401
        from domains.metrics import metrics_register

        metrics_register()
