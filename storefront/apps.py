from django.apps import AppConfig


class StorefrontConfig(AppConfig):
    name = "storefront"
    verbose_name = "Storefront"

    def ready(self) -> None:
        from django.core.signals import setting_changed

        from storefront import checks  # noqa: F401  (registers the deploy checks)

        brand_admin()
        setting_changed.connect(_rebrand)


def _rebrand(*, setting: str, **_: object) -> None:
    if setting == "STORE_NAME":
        brand_admin()


def brand_admin() -> None:
    """Staff see the shop's name in the admin instead of Django's ("Django administration")."""
    from django.conf import settings
    from django.contrib import admin

    admin.site.site_header = f"{settings.STORE_NAME} staff"
    admin.site.site_title = f"{settings.STORE_NAME} admin"
    admin.site.index_title = "Customers, orders and registrations"
