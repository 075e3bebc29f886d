from django.apps import AppConfig


class AccessConfig(AppConfig):
    name = "portal.access"
    label = "access"
    verbose_name = "Projects and access"
