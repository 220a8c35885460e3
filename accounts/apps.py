from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"

    def ready(self) -> None:
        from accounts import emails, receivers  # noqa: F401  (registers the keyed emails' renderers; connects receivers)
