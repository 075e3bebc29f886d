from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "chat"

    def ready(self) -> None:
        # Stored answers cite kb's documents: kb tells us when one changes (kb.drift).
        from chat.drift import CITATION_WATCHER
        from kb.drift import register_citation_watcher

        register_citation_watcher(CITATION_WATCHER)
