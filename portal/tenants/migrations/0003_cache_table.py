from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor) -> None:
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    """The database cache table (throttle and rate-limit counters shared by every process) lives
    in the public schema, which every tenant's search_path includes."""

    dependencies = [("tenants", "0002_vector_extension")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
