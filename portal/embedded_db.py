"""Embedded PostgreSQL 16 + pgvector (the `pgserver` wheel), used when DATABASE_URL is unset."""

from __future__ import annotations

import logging
from pathlib import Path

logger = logging.getLogger(__name__)


def embedded_database_url(data_dir: Path) -> str:
    """Start (or attach to) the embedded server in `data_dir` and return its URL.

    The server stops when the last process that attached to it exits, so Ctrl-C on
    `./dev run` shuts it down cleanly and the next run reuses the data directory.
    """
    import pgserver

    data_dir.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(str(data_dir), cleanup_mode="stop")
    return server.get_uri()
