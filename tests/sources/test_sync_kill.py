"""A worker killed (SIGKILL) in the middle of a source's sync: the next worker requeues the
job, the sync starts again from the old cursor, and every file ends up once, nothing lost.
Real processes against a separate embedded PostgreSQL, on a real Git repository."""

from __future__ import annotations

import signal
import time

import pytest

from tests.security.test_faults import fault_database, run_django, start_worker
from tests.sources.conftest import Repo

pytestmark = pytest.mark.real_model

FILES = 48

ADD_SOURCE = """
import os
from django_tenants.utils import schema_context
from portal.access.services import project_ensure
from sources.services import source_create
with schema_context("faults"):
    source = source_create(
        project=project_ensure(key="handbook"), name="handbook", kind="git",
        settings={"url": os.environ["FAULT_REPO"], "paths": ["*.md"]},
    )
    print(json.dumps({"source": source.pk}))
"""

STATE = """
import os
from django_tenants.utils import schema_context
from kb.models import Document
from sources.models import Source, SourceItem
with schema_context("faults"):
    source = Source.objects.get(pk=int(os.environ["FAULT_SOURCE"]))
    docs = Document.objects.filter(project__key="handbook")
    print(json.dumps({
        "state": source.state, "cursor": source.cursor, "added": source.last_added,
        "documents": docs.count(), "live": docs.filter(deleted_at__isnull=True).count(),
        "paths": docs.values("source_path").distinct().count(),
        "items": SourceItem.objects.filter(source=source).count(),
    }))
"""


@pytest.fixture(scope="module")
def fault_db():
    """A throwaway embedded server with the `faults` tenant (tests.security.test_faults)."""
    with fault_database("gw-sync-fault-") as (env, _, folder):
        yield env, folder


def test_a_sync_killed_midway_finishes_on_the_next_worker_with_every_file_once(fault_db):
    env, folder = fault_db
    repo = Repo(folder / "upstream" / "handbook")
    for number in range(FILES):
        body = " ".join(f"Runbook {number} step {step} checks replica lag." for step in range(40))
        repo.write(f"runbooks/runbook-{number:02}.md", f"# Runbook {number}\n\n{body}\n")
    head = repo.commit("runbooks")
    # the real model, in small batches: the sync takes long enough to be killed midway
    env = {
        **env,
        "KB_EMBEDDING_PROVIDER": "local",
        "KB_EMBEDDING_BATCH_SIZE": "2",
        "SOURCES_LOCAL_ROOTS": str(folder / "upstream"),
        "SOURCES_CACHE_DIR": str(folder / "cache"),
        "FAULT_REPO": str(repo.path),
    }
    env["FAULT_SOURCE"] = str(run_django(ADD_SOURCE, env)["source"])  # its first sync queued

    worker = start_worker(env)
    deadline = time.monotonic() + 300
    state: dict = {}
    while time.monotonic() < deadline:
        time.sleep(0.5)
        if worker.poll() is not None:
            pytest.fail(f"the worker ended by itself: {worker.communicate()[1].decode()[-2000:]}")
        state = run_django(STATE, env)
        if state["state"] == "running" and 0 < state["documents"] < FILES:
            break
    else:
        pytest.fail(f"the sync never got midway: {state}")
    worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=30)

    killed = run_django(STATE, env)
    assert killed["state"] == "running" and killed["cursor"] == "", killed
    assert 0 < killed["documents"] < FILES

    rerun = start_worker(env, "--batch")  # requeues the dead worker's sync, runs it, exits
    _, stderr = rerun.communicate(timeout=600)
    assert rerun.returncode == 0, stderr.decode()[-2000:]

    final = run_django(STATE, env)
    assert final == {
        "state": "ok",
        "cursor": head,
        "added": FILES - killed["documents"],  # what the killed run had written is skipped
        "documents": FILES,
        "live": FILES,
        "paths": FILES,
        "items": FILES,
    }
