"""Where the bundled demo corpus lives."""

from __future__ import annotations

from pathlib import Path

DEMO_CORPUS_DIR = Path(__file__).resolve().parent / "demo_corpus" / "handbook"


def demo_corpus_path() -> Path | None:
    """The demo handbook folder, or None when it is not shipped."""
    return DEMO_CORPUS_DIR if DEMO_CORPUS_DIR.is_dir() else None
