from django.apps import AppConfig


class CanonicalConfig(AppConfig):
    name = "canonical"
