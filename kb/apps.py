from typing import Any

from django.apps import AppConfig
from django.core import checks


class KbConfig(AppConfig):
    name = "kb"
    verbose_name = "Knowledge base"

    def ready(self) -> None:
        checks.register(curation_layer_check)


def curation_layer_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """kb.E001: curated fields (status, type, priority, deletion) change only where a curation
    layer audits them; without one the server does not start."""
    from kb.curation import NO_EDITOR, registered_editor

    if registered_editor() is None:
        return [checks.Error(NO_EDITOR, id="kb.E001")]
    return []
