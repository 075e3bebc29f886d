"""demo_setup: the local demo (public host, tenant demo, user demo/demo, handbook corpus).

Lives in kb because it ingests the demo corpus (portal never imports kb).
"""

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django_tenants.utils import schema_context

from kb.demo import demo_corpus_path
from portal.access.services import user_upsert
from portal.tenants.models import Tenant
from portal.tenants.services import public_tenant_ensure, tenant_create

DEMO_SCHEMA = "demo"
DEMO_HOST = "demo.localhost"
DEMO_PROJECT = "handbook"


class Command(BaseCommand):
    help = "Local demo only: public host, the demo tenant, user demo/demo and its corpus."

    def handle(self, *args: object, **options: object) -> None:
        if not (settings.DEBUG or settings.TESTING):
            raise CommandError("demo_setup creates a known password; it only runs with DEBUG on.")
        public_tenant_ensure(domains=["localhost", "127.0.0.1"])
        if not Tenant.objects.filter(schema_name=DEMO_SCHEMA).exists():
            self.stdout.write("Creating the demo tenant (schema demo, host demo.localhost)")
            tenant_create(schema_name=DEMO_SCHEMA, domain=DEMO_HOST, name="Demo Company")
        with schema_context(DEMO_SCHEMA):
            user_upsert(username="demo", password="demo", project_roles=[(DEMO_PROJECT, "editor")])
        self._ingest_demo_corpus()

    def _ingest_demo_corpus(self) -> None:
        path = demo_corpus_path()
        if path is None:
            return
        call_command(
            "kb_ingest", "--tenant", DEMO_SCHEMA, "--project", DEMO_PROJECT, str(path), "--quiet"
        )
