"""Embedded PostgreSQL 16 + pgvector (the `pgserver` wheel), used when DATABASE_URL is unset."""

from __future__ import annotations

import json
import logging
import signal
import sys
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


def embedded_database_url(data_dir: Path, server_settings: dict[str, str] | None = None) -> str:
    """Start (or attach to) the embedded server in `data_dir` and return its URL.

    The server stops when the last process that attached to it exits, so Ctrl-C on
    `./dev run` shuts it down cleanly and the next run reuses the data directory.
    `server_settings` (postgresql.conf names, e.g. shared_buffers) are written to
    `groundwork.conf` in the data directory; they take effect when the server starts, and a
    freshly initialised server is restarted once to pick them up.
    """
    import pgserver

    data_dir.mkdir(parents=True, exist_ok=True)
    repair_handle_file(data_dir)
    fresh = not (data_dir / "PG_VERSION").exists()
    if not fresh:
        write_server_settings(data_dir, server_settings or {})
    server = pgserver.get_server(str(data_dir), cleanup_mode="stop")
    if fresh and server_settings:
        # initdb + first start ran with PostgreSQL's defaults; nobody else is attached yet.
        write_server_settings(data_dir, server_settings)
        control_embedded_server(data_dir, "-w", "restart", timeout=30)
    _exit_cleanly_on_sigterm()
    return server.get_uri()


def control_embedded_server(data_dir: Path, *args: str, timeout: int = 60) -> None:
    """Run `pg_ctl ARGS` on the server in `data_dir` as the OS user pgserver runs it as
    (`pgserver` when root). Raises CalledProcessError if pg_ctl fails."""
    import os

    from pgserver._commands import pg_ctl  # type: ignore[attr-defined]  # private helper

    user = "pgserver" if os.geteuid() == 0 else None  # pgserver's own rule
    pg_ctl(list(args), pgdata=data_dir, user=user, timeout=timeout)


def stop_embedded_server(data_dir: Path) -> bool:
    """Stop the server running in `data_dir`, whoever is still attached; True if one ran.

    For a throwaway test database before its folder is deleted: pgserver stops a server
    only when the last attached process exits, and a process killed with SIGKILL (the fault
    tests do that on purpose) stays on its list, leaving the server running.
    """
    import subprocess

    if not (data_dir / "postmaster.pid").exists():
        return False
    try:
        control_embedded_server(data_dir, "-w", "-m", "fast", "stop")
    except subprocess.CalledProcessError:  # a stale pid file: nothing was running
        return False
    return True


INCLUDE_LINE = "include_if_exists = 'groundwork.conf'"


def write_server_settings(data_dir: Path, server_settings: dict[str, str]) -> None:
    """groundwork.conf holds the sized settings; postgresql.conf includes it (last wins)."""
    lines = [f"{name} = '{value}'" for name, value in sorted(server_settings.items()) if value]
    conf = data_dir / "groundwork.conf"
    text = "# written by Groundwork (portal/settings.py EMBEDDED_DB_SETTINGS)\n"
    text += "".join(f"{line}\n" for line in lines)
    if not conf.exists() or conf.read_text() != text:
        conf.write_text(text)
    main = data_dir / "postgresql.conf"
    if main.exists() and INCLUDE_LINE not in main.read_text():
        with main.open("a") as handle:
            handle.write(f"\n{INCLUDE_LINE}\n")


def repair_handle_file(data_dir: Path) -> None:
    """Keep pgserver's list of attached processes truthful before attaching.

    The list decides when the last client stops the server. A process that ended without
    its exit hook (killed with SIGKILL, or by a signal Python does not handle) stays listed
    and would keep the server running after every other client left: those are dropped.
    An unreadable list (a crash while writing it) would stop every later start: it is reset.
    """
    import pgserver

    with pgserver.PostgresServer._lock:  # the inter-process lock pgserver takes around it
        _living_attached(data_dir)


def stop_embedded_server_if_unused(data_dir: Path) -> bool:
    """Stop the server in `data_dir` when no living process is attached to it; True if it ran.

    `./dev run` calls this last. pgserver stops the server when its last client exits through
    its exit hook, but a client that could not run the hook (a gunicorn worker killed at the
    end of its graceful timeout) stays listed, and the server would run on with nobody left.
    """
    import pgserver

    with pgserver.PostgresServer._lock:  # nobody attaches between the check and the stop
        if _living_attached(data_dir):
            return False
        return stop_embedded_server(data_dir)


def _living_attached(data_dir: Path) -> list[int]:
    """The attached processes still alive, with the exited ones dropped from pgserver's list
    (an unreadable list is reset); call with pgserver's lock held."""
    import psutil  # type: ignore[import-untyped]  # pgserver's own dependency

    handle_file = data_dir / ".handle_pids.json"
    if not handle_file.exists():
        return []
    try:
        pids = json.loads(handle_file.read_text())
        if not isinstance(pids, list):
            raise ValueError("not a list")
    except (ValueError, OSError):
        logger.warning("embedded database: resetting unreadable %s", handle_file)
        handle_file.write_text("[]")
        return []
    alive = [pid for pid in pids if isinstance(pid, int) and _alive(psutil, pid)]
    if alive != pids:
        logger.info(
            "embedded database: %d exited processes were still listed as attached; dropped",
            len(pids) - len(alive),
        )
        handle_file.write_text(json.dumps(alive))
    return alive


def _alive(psutil: Any, pid: int) -> bool:
    # a killed process whose parent exited first may linger as a zombie until it is reaped
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


def _exit_cleanly_on_sigterm() -> None:
    """Turn SIGTERM into a normal exit so the server's exit hook runs (as it does on Ctrl-C)."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        try:
            signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
        except ValueError:  # not the main thread: leave signal handling to the host process
            pass
