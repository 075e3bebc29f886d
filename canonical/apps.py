from django.apps import AppConfig


class CanonicalConfig(AppConfig):
    name = "canonical"
    verbose_name = "Curation"
