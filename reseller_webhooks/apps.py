from django.apps import AppConfig


class ResellerWebhooksConfig(AppConfig):
    name = "reseller_webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        # The sweep that sends what is due is scheduled when its tasks module is imported (the scheduler).
        import reseller_webhooks.tasks  # noqa: F401
