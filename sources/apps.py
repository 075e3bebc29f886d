from django.apps import AppConfig


class SourcesConfig(AppConfig):
    name = "sources"
    verbose_name = "Sources (connectors with scheduled sync)"
