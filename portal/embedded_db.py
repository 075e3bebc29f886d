"""Embedded PostgreSQL 16 + pgvector (the `pgserver` wheel), used when DATABASE_URL is unset."""

from __future__ import annotations

import json
import logging
import signal
import sys
from pathlib import Path

logger = logging.getLogger(__name__)


def embedded_database_url(data_dir: Path) -> str:
    """Start (or attach to) the embedded server in `data_dir` and return its URL.

    The server stops when the last process that attached to it exits, so Ctrl-C on
    `./dev run` shuts it down cleanly and the next run reuses the data directory.
    """
    import pgserver

    data_dir.mkdir(parents=True, exist_ok=True)
    _repair_handle_file(data_dir)
    server = pgserver.get_server(str(data_dir), cleanup_mode="stop")
    _exit_cleanly_on_sigterm()
    return server.get_uri()


def _repair_handle_file(data_dir: Path) -> None:
    """Reset pgserver's list of attached processes if a crash left it unreadable.

    The list only decides when the last client stops the server; losing it is harmless,
    while an unreadable one would stop every later start.
    """
    handle_file = data_dir / ".handle_pids.json"
    if not handle_file.exists():
        return
    try:
        pids = json.loads(handle_file.read_text())
        if not isinstance(pids, list):
            raise ValueError("not a list")
    except (ValueError, OSError):
        logger.warning("embedded database: resetting unreadable %s", handle_file)
        handle_file.write_text("[]")


def _exit_cleanly_on_sigterm() -> None:
    """Turn SIGTERM into a normal exit so the server's exit hook runs (as it does on Ctrl-C)."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        try:
            signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
        except ValueError:  # not the main thread: leave signal handling to the host process
            pass
