from django.apps import AppConfig


class CanonicalConfig(AppConfig):
    name = "canonical"
    verbose_name = "Curation"

    def ready(self) -> None:
        # Curation is a layer on kb: kb's document PATCH goes through this editor.
        from canonical.apis import RECORD_EDITOR
        from kb.curation import register_editor

        register_editor(RECORD_EDITOR)
