"""The ingestion worker: django-tasks-db's worker loop, plus crash recovery.

django-tasks-db marks a claimed job RUNNING and never looks at it again, so a worker killed
mid-job (SIGKILL, OOM, a lost machine) would strand it. Each worker therefore holds a
PostgreSQL advisory lock named after its worker id for as long as it lives: the database
drops the lock the moment the worker's session dies. Any worker periodically requeues RUNNING
jobs whose worker holds no lock. The task itself is idempotent and counts its attempts.
The same loop enqueues the PERIODIC_TASKS (e.g. the retention purge) once per period.
"""

from __future__ import annotations

import logging
import threading
import time
import zlib
from uuid import uuid4

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connection
from django.db.utils import DatabaseError
from django.utils.module_loading import import_string
from django_tenants.utils import get_public_schema_name, schema_context

logger = logging.getLogger(__name__)

LOCK_NAMESPACE = 0x4B42  # "KB": the first key of every worker liveness lock


def _to_public() -> None:
    """The queue table lives in the public schema (django-tenants' connection method)."""
    connection.set_schema_to_public()  # type: ignore[attr-defined]


def liveness_lock_key(worker_id: str) -> int:
    return zlib.crc32(worker_id.encode()) & 0x7FFFFFFF


def _take_liveness_lock(worker_id: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_lock(%s, %s)", [LOCK_NAMESPACE, liveness_lock_key(worker_id)]
        )


def worker_alive(worker_id: str) -> bool:
    """Whether a live session holds the worker's liveness lock (in this database)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND classid = %s AND objid = %s AND objsubid = 2 "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))",
            [LOCK_NAMESPACE, liveness_lock_key(worker_id)],
        )
        return bool(cursor.fetchone()[0])


def requeue_orphaned_tasks() -> int:
    """Put RUNNING tasks whose worker is gone back in the queue; returns how many."""
    from django_tasks_db.compat import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    _to_public()
    requeued = 0
    for result in DBTaskResult.objects.running().only("id", "worker_ids"):
        worker_id = result.worker_ids[-1] if result.worker_ids else ""
        if worker_id and worker_alive(worker_id):
            continue
        requeued += DBTaskResult.objects.filter(
            pk=result.pk, status=TaskResultStatus.RUNNING
        ).update(status=TaskResultStatus.READY, started_at=None)
        logger.warning("requeued task %s: its worker %s is gone", result.pk, worker_id or "?")
    return requeued


def enqueue_due_periodic_tasks(*, now: float | None = None) -> list[str]:
    """Enqueue each PERIODIC_TASKS task whose period has begun and nobody enqueued yet.

    Every worker calls this; the claim is an atomic `add` in the shared cache keyed by the
    task and its period, so one worker of the fleet enqueues it once per period.
    """
    now = time.time() if now is None else now
    enqueued: list[str] = []
    for dotted, seconds in settings.PERIODIC_TASKS.items():
        if seconds <= 0:
            continue
        period = int(now // seconds)
        if cache.add(f"periodic:{dotted}:{period}", 1, timeout=seconds * 2):
            import_string(dotted).enqueue()
            enqueued.append(dotted)
            logger.info("enqueued periodic task %s", dotted)
    return enqueued


class _Liveness(threading.Thread):
    """Holds the liveness lock on its own connection and runs the orphan sweep."""

    def __init__(self, worker_id: str) -> None:
        super().__init__(name="kb-worker-liveness", daemon=True)
        self.worker_id = worker_id
        self.ready = threading.Event()
        self.stopping = threading.Event()

    def run(self) -> None:
        interval = float(settings.KB["WORKER_REAP_SECONDS"])
        locked = False
        while not self.stopping.is_set():
            try:
                if not locked:
                    _to_public()
                    _take_liveness_lock(self.worker_id)
                    locked = True
                requeue_orphaned_tasks()
                enqueue_due_periodic_tasks()
                self.ready.set()  # the first sweep is done before the worker takes a job
            except DatabaseError:
                # the session (and with it the lock) is gone: reconnect and lock again
                logger.warning("worker liveness connection lost; reconnecting", exc_info=True)
                connection.close()
                locked = False
            self.stopping.wait(interval)
        connection.close()


def run_worker(*, worker_id: str | None = None, batch: bool = False) -> None:
    """Run jobs until stopped (or, with batch, until the queue is empty)."""
    from django_tasks_db.management.commands.db_worker import Worker

    worker_id = worker_id or f"kb-{uuid4().hex[:12]}"
    liveness = _Liveness(worker_id)
    liveness.start()
    liveness.ready.wait(30)
    close_old_connections()
    _to_public()
    worker = Worker(
        queue_names=["*"],
        interval=float(settings.KB["WORKER_POLL_SECONDS"]),
        batch=batch,
        backend_name="default",
        startup_delay=not batch,
        max_tasks=None,
        worker_id=worker_id,
        excluded_queue_names=[],
    )
    if not batch:
        worker.configure_signals()
    try:
        worker.run()
    finally:
        liveness.stopping.set()


def run_queued_tasks(*, worker_id: str = "in-process", limit: int | None = None) -> int:
    """Run ready tasks in this process and thread until the queue is empty (or `limit`);
    returns how many ran. No connection recycling, so it also runs inside a test transaction."""
    from django.db import transaction
    from django_tasks_db.management.commands.db_worker import Worker
    from django_tasks_db.models import DBTaskResult

    worker = Worker(
        queue_names=["*"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id=worker_id,
        excluded_queue_names=[],
    )
    ran = 0
    with schema_context(get_public_schema_name()):  # restores the caller's tenant afterwards
        while limit is None or ran < limit:
            with transaction.atomic():
                ready = DBTaskResult.objects.ready().filter(backend_name="default")
                result = ready.get_locked()
                if result is not None:
                    result.claim(worker_id)
            if result is None:
                break
            worker.run_task(result)
            ran += 1
    return ran
