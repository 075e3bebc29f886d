"""Run one retrieval arm on a second database connection while the caller runs the other.

The two arms are independent index scans (HNSW and GIN); on separate connections PostgreSQL
runs them on two backends at once, so a hybrid search costs about the slower arm instead of
the sum. The worker thread keeps its own Django connection (one extra connection per
process), pointed at the caller's tenant schema before every task.

Only used outside a transaction: a second connection cannot see rows the caller has not
committed (tests, a request that wrote first), so inside an atomic block the arms run one
after the other on the caller's connection.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

from django.db import DatabaseError, close_old_connections, connection

from portal.tenants.selectors import current_schema

logger = logging.getLogger(__name__)

T = TypeVar("T")

_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-arm")
        return _pool


def can_run_concurrently() -> bool:
    """True when the caller's connection holds no open transaction a worker could not see."""
    return not connection.in_atomic_block


def _in_tenant(tenant: object, work: Callable[[], T]) -> T:
    # What a request start does for the caller's thread, only when there is something to
    # drop: a connection past CONN_MAX_AGE, or one whose last statement failed (a database
    # restart). Doing it on every task would cost a health-check round trip on the search's
    # critical path; a connection that died unnoticed fails its statement, the caller reruns
    # the arm inline, and the next task here reconnects.
    close_at = connection.close_at
    if connection.errors_occurred or (close_at is not None and time.monotonic() >= close_at):
        close_old_connections()
    if current_schema() != getattr(tenant, "schema_name", None):
        connection.set_tenant(tenant)  # type: ignore[attr-defined]  # django-tenants' wrapper
    return work()


# One worker, one task at a time: a second request thread of the process that finds it busy
# runs its arm inline instead of queueing behind another search.
_idle = threading.Semaphore(1)


def _run(tenant: object, work: Callable[[], T]) -> T:
    try:
        return _in_tenant(tenant, work)
    finally:
        _idle.release()


def submit(work: Callable[[], T]) -> Future[T] | None:
    """Start `work` on the worker connection in the caller's tenant schema; None when the
    worker is busy with another search (the caller runs `work` itself)."""
    if not _idle.acquire(blocking=False):
        return None
    tenant = getattr(connection, "tenant", None)
    try:
        return _executor().submit(_run, tenant, work)
    except BaseException:
        _idle.release()
        raise


def _rerun_here(what: str, work: Callable[[], T], exc: DatabaseError) -> T:
    """Work that failed on the worker's connection, run again on the caller's: the worker's
    connection is the one that died unnoticed (a database restart), not the query."""
    logger.warning("%s failed on the worker connection, rerun inline: %s", what, exc)
    return work()


def result(pending: Future[T], what: str, work: Callable[[], T]) -> T:
    """The worker's result, or `work` run here if it failed on the worker's connection."""
    try:
        return pending.result()
    except DatabaseError as exc:
        return _rerun_here(what, work, exc)


class SharedTask(Generic[T]):
    """Work either thread of a search may run, whichever finishes its own arm first.

    The worker runs it after its arm (`run_on_worker`) unless the caller has claimed it
    (`run_here`, after the caller's arm); so it lands on the thread that would otherwise
    wait. The first to claim runs it. `result` is read once the worker's task is over: it
    runs the work on the caller's connection if nobody did, or if it failed on the worker's
    connection (as `result` does for an arm).
    """

    def __init__(self, what: str, work: Callable[[], T]) -> None:
        self._what = what
        self._work = work
        self._lock = threading.Lock()
        self._claimed = False
        self._value: T | None = None
        self._failed: DatabaseError | None = None

    def _claim(self) -> bool:
        with self._lock:
            if self._claimed:
                return False
            self._claimed = True
            return True

    def run_on_worker(self) -> None:
        if self._claim():
            try:
                self._value = self._work()
            except DatabaseError as exc:  # the worker's connection: redone by the caller
                self._failed = exc

    def run_here(self) -> None:
        if self._claim():
            self._value = self._work()

    def result(self) -> T:
        """The work's value; call only when the worker's task has ended."""
        self.run_here()
        if self._failed is not None:
            self._value, self._failed = _rerun_here(self._what, self._work, self._failed), None
        return self._value  # type: ignore[return-value]  # set by whoever ran it


def close_connections() -> None:
    """Close the worker's database connection (tests, before the database goes away)."""
    with _pool_lock:
        pool = _pool
    if pool is not None:
        # resolved in the worker thread: `connection` is that thread's own wrapper there
        pool.submit(lambda: connection.close()).result()
