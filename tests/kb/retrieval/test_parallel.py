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
