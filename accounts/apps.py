from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    # The admin's index lists customers, their email addresses and the activity log under this heading.
    verbose_name = "Customers"

    def ready(self) -> None:
        from accounts import currency, language  # noqa: F401  (registers the keyed emails' renderers; connects receivers)
        from accounts.signup import emails, receivers  # noqa: F401
