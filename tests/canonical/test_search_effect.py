"""A curation change takes effect in the very next search (real pipeline, hash embedder)."""

from __future__ import annotations

import pytest

from canonical import services
from kb.curation import AuditContext
from kb.retrieval import search
from kb.services import document_ingest
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for

WHY = "curated in a test"  # status changes and supersedes need a reason

pytestmark = pytest.mark.django_db

QUEUE_REDIS = """---
type: decision
status: accepted
slug: queue-on-redis
retrieval_priority: 50
---
# Background jobs queue

Background jobs queue: worker retries, run on Redis. The queue is Redis.
"""

QUEUE_POSTGRES = """---
type: decision
status: accepted
slug: queue-on-postgres
retrieval_priority: 50
---
# Background jobs queue

Background jobs queue: worker retries, run on PostgreSQL.
"""

HOLIDAYS = """# Holiday policy

Staff take twenty-five days of paid leave a year.
"""

QUERY = "background jobs queue worker retries"


def ranking(user) -> list[str]:
    result = search(user=user, query=QUERY, min_similarity=0.0)
    slugs: list[str] = []
    for hit in result.primary:
        if hit.slug not in slugs:
            slugs.append(hit.slug)
    return slugs


@pytest.fixture
def corpus(alpha):
    project = project_ensure(key="search-cur")
    for path, content in [
        ("redis.md", QUEUE_REDIS),
        ("pg.md", QUEUE_POSTGRES),
        ("holidays.md", HOLIDAYS),
    ]:
        outcome = document_ingest(project=project, source_path=path, content=content)
        assert outcome.status == "created", outcome
    return {o.slug: o for o in project.documents.all()}


def test_deprecating_over_the_api_moves_the_record_down_in_the_next_search(alpha, corpus):
    editor = make_user(alpha, "search-ed", projects={"search-cur": "editor"})
    before = ranking(editor)
    assert set(before[:2]) == {"queue-on-redis", "queue-on-postgres"}
    top, runner = before[0], before[1]

    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, editor)}")
    response = client.patch(
        f"/api/kb/documents/{corpus[top].pk}",
        {"canonical_status": "deprecated", "reason": "replaced"},
        content_type="application/json",
    )
    assert response.status_code == 200, response.json()

    after = ranking(editor)
    assert after[0] == runner
    assert after.index(top) > 0


def test_archive_and_restore_take_effect_immediately(alpha, corpus):
    editor = make_user(alpha, "search-ed2", projects={"search-cur": "editor"})
    top, runner = ranking(editor)[:2]
    services.record_archive(document=corpus[top], by=AuditContext(actor=editor, reason=WHY))
    assert ranking(editor)[0] == runner
    services.record_restore(document=corpus[top], by=AuditContext(actor=editor, reason=WHY))
    assert ranking(editor)[0] == top
    hits = search(user=editor, query=QUERY, min_similarity=0.0).primary
    assert {hit.canonical_status for hit in hits if hit.slug == top} == {"accepted"}


def test_supersede_in_the_admin_ranks_the_old_record_below_its_successor(alpha, corpus):
    editor = make_user(alpha, "search-ed3", projects={"search-cur": "editor"})
    top, runner = ranking(editor)[:2]
    client = alpha.client()
    client.force_login(editor)
    client.post(
        "/admin/canonical/canonicalrecord/",
        {
            "action": "supersede_records",
            "_selected_action": [corpus[top].pk],
            "apply": "1",
            "successor": corpus[runner].pk,
            "reason": WHY,
        },
    )
    assert ranking(editor)[0] == runner
