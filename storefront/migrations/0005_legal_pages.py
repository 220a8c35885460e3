"""The site (its domain from SITE_URL, its name STORE_NAME) and the three legal pages with starter text naming
the store (storefront/site/legal_starter.py). Staff rewrite the pages in the admin; an existing page is never
overwritten."""

from urllib.parse import urlparse

from django.conf import settings
from django.db import migrations

from storefront.site.legal_starter import legal_pages_ensure


def create(apps, schema_editor):
    Site = apps.get_model("sites", "Site")
    domain = urlparse(settings.SITE_URL).netloc or "localhost"
    site, _ = Site.objects.update_or_create(
        pk=settings.SITE_ID, defaults={"domain": domain[:100], "name": settings.STORE_NAME[:50]}
    )
    legal_pages_ensure(flatpage_model=apps.get_model("flatpages", "FlatPage"), site=site)


class Migration(migrations.Migration):
    dependencies = [
        ("storefront", "0004_legal_text"),
        ("sites", "0002_alter_domain_unique"),
        ("flatpages", "0001_initial"),
    ]

    operations = [migrations.RunPython(create, migrations.RunPython.noop)]
