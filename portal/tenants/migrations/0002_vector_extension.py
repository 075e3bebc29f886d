from django.db import migrations


class Migration(migrations.Migration):
    """pgvector lives in the public schema so every tenant schema (search_path tenant, public) sees it."""

    dependencies = [("tenants", "0001_initial")]

    operations = [
        migrations.RunSQL(
            "CREATE EXTENSION IF NOT EXISTS vector SCHEMA public;",
            reverse_sql=migrations.RunSQL.noop,
        )
    ]
