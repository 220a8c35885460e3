from django.apps import AppConfig


class StorefrontConfig(AppConfig):
    name = "storefront"
    verbose_name = "Storefront"

    def ready(self) -> None:
        from django.core.signals import setting_changed
        from django.db.models.signals import post_migrate

        # checks registers the deploy checks, tasks schedules the outbox.
        from storefront import checks, tasks  # noqa: F401
        from storefront.requests import after_response

        after_response.connect()

        # One id per request on every log line, task and provider call (storefront/requests/request_ids.py); failed
        # tasks reported as errors, under their id: connected first, before the id is unbound at a task's end.
        from storefront.observability import error_reports
        from storefront.requests import request_ids, task_requests

        request_ids.install_log_record_factory()
        error_reports.connect_task_failures()
        task_requests.connect_task_signals()
        _error_tracker_start()

        brand_admin()
        setting_changed.connect(_rebrand)
        post_migrate.connect(_sync_site, sender=self)


def _error_tracker_start() -> None:
    """The error tracker, when SENTRY_DSN is set (storefront/observability/error_reports.py): started here, before the
    first request or task, in every process (web, worker, scheduler, commands)."""
    from django.conf import settings

    if settings.SENTRY_DSN:
        from storefront.observability.error_reports import sentry_init

        sentry_init(dsn=settings.SENTRY_DSN, environment=settings.SENTRY_ENVIRONMENT, release=settings.SENTRY_RELEASE)


def _rebrand(*, setting: str, **_: object) -> None:
    if setting == "STORE_NAME":
        brand_admin()


def _sync_site(**_: object) -> None:
    """The sites framework's one site follows SITE_URL and STORE_NAME (allauth's emails print its name), and the
    legal pages exist (storefront/site/legal_starter.py): at every migrate, which the release step runs on each
    deploy (and after a test flushes the database)."""
    from urllib.parse import urlparse

    from django.conf import settings
    from django.contrib.flatpages.models import FlatPage
    from django.contrib.sites.models import Site

    from storefront.site.legal_starter import legal_pages_ensure

    domain = (urlparse(settings.SITE_URL).netloc or "localhost")[:100]
    site, _created = Site.objects.update_or_create(
        pk=settings.SITE_ID, defaults={"domain": domain, "name": settings.STORE_NAME[:50]}
    )
    Site.objects.clear_cache()
    legal_pages_ensure(flatpage_model=FlatPage, site=site)


def brand_admin() -> None:
    """Staff see the shop's name in the admin instead of Django's ("Django administration")."""
    from django.conf import settings
    from django.contrib import admin

    admin.site.site_header = f"{settings.STORE_NAME} staff"
    admin.site.site_title = f"{settings.STORE_NAME} admin"
    admin.site.index_title = "Customers, orders and registrations"
