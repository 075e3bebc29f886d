"""The arm worker: one search at a time; a busy worker means the caller runs its arm itself.

`db`: the worker health-checks a connection an earlier test may have left it.
"""

from __future__ import annotations

from kb.retrieval import parallel


def test_a_busy_worker_is_not_queued_behind(db):
    assert parallel._idle.acquire(blocking=False)  # another search holds the worker
    try:
        assert parallel.submit(lambda: 42) is None
    finally:
        parallel._idle.release()
    future = parallel.submit(lambda: 42)
    assert future is not None and future.result(timeout=10) == 42
    # the worker is free again once the result is in
    again = parallel.submit(lambda: 7)
    assert again is not None and again.result(timeout=10) == 7


def _recording(calls: list[str], fail_on_worker: bool = False):
    import threading

    from django.db import OperationalError

    def work() -> str:
        name = threading.current_thread().name
        calls.append(name)
        if fail_on_worker and name.startswith("kb-arm"):
            raise OperationalError("server closed the connection unexpectedly")
        return f"done on {name}"

    return work


def test_a_shared_task_runs_once_on_the_thread_that_claims_it_first(db):
    calls: list[str] = []
    task = parallel.SharedTask("test task", _recording(calls))
    future = parallel.submit(task.run_on_worker)  # the worker's arm finished first
    assert future is not None
    future.result(timeout=10)
    task.run_here()  # the caller's arm finishes later: nothing left to do
    assert task.result().startswith("done on kb-arm")
    assert len(calls) == 1

    calls.clear()
    task = parallel.SharedTask("test task", _recording(calls))
    task.run_here()  # the caller first
    future = parallel.submit(task.run_on_worker)
    assert future is not None
    future.result(timeout=10)
    assert task.result() == "done on MainThread" and calls == ["MainThread"]


def test_a_shared_task_that_fails_on_the_worker_connection_is_redone_by_the_caller(db, caplog):
    calls: list[str] = []
    task = parallel.SharedTask("test task", _recording(calls, fail_on_worker=True))
    future = parallel.submit(task.run_on_worker)
    assert future is not None
    future.result(timeout=10)  # the worker's own result is not lost to the failure
    assert task.result() == "done on MainThread"
    assert [name[:6] for name in calls] == ["kb-arm", "MainTh"]
    assert "rerun inline" in caplog.text
