"""Give the Sites framework's site the domain from settings (SITE_DOMAIN), so absolute links in
the sitemap and in emails point at this deployment rather than example.com."""

from django.conf import settings
from django.db import migrations


def set_site_domain(apps, schema_editor):
    Site = apps.get_model("sites", "Site")
    Site.objects.update_or_create(
        id=settings.SITE_ID, defaults={"domain": settings.SITE_DOMAIN, "name": "bzpeer"}
    )


class Migration(migrations.Migration):
    dependencies = [("users", "0001_initial"), ("sites", "0002_alter_domain_unique")]

    operations = [migrations.RunPython(set_site_domain, migrations.RunPython.noop)]
