"""Document preview rendering lives in kb (shared with the curation console)."""

from kb.rendering import rebuild_content, render_markdown, sanitise_html

__all__ = ["rebuild_content", "render_markdown", "sanitise_html"]
