"""What the answer-drift job costs with 100k stored answers (issue 28 part 3).

    GROUNDWORK_TESTING=1 .venv/bin/python benchmarks/answer_drift.py [--answers 100000] [--json]

Creates a throwaway tenant (schema bench_drift_<pid>) with 50 documents (hash embedder), 500
askers and `--answers` stored answers (each after its question, in conversations of ten
turns), each citing two documents; one "hot" document is cited by a further fifth of all
answers. Rows are written with set-based SQL (the chat turn itself is not what is measured).
Then, for the hot document and for an ordinary one: the editors' confirmation count, the
supersede through `canonical.services` (which queues the job), the drift job itself, and the
job run again (idempotent: nothing new). Also the bell's unread count for one asker. The
tenant is dropped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
os.environ.setdefault("DEBUG", "1")

DOCUMENTS = 50
ASKERS = 500
TURNS_PER_CONVERSATION = 10


def document_text(n: int) -> str:
    return (
        f"---\ntype: decision\nstatus: accepted\nslug: decision-{n}\n---\n\n"
        f"# Decision {n}\n\n## Decision\n\nService {n} stores its events in store {n}.\n\n"
        f"## Consequences\n\nOperators of service {n} watch dashboard {n}.\n"
    )


def timed(work: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = work()
    return (time.perf_counter() - started) * 1000, result


def populate(answers: int) -> dict[str, Any]:
    """Documents, askers and `answers` stored answers with their citation rows."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from chat.models import CitedDocument, Conversation, Message
    from kb.embeddings import build_embedder
    from kb.models import Chunk
    from kb.services import IngestItem, documents_ingest_many
    from kb.versions import chunk_hash
    from portal.access.models import Membership
    from portal.access.services import project_ensure

    project = project_ensure(key="bench")
    outcomes = documents_ingest_many(
        project=project,
        items=[
            IngestItem(source_path=f"d{n}.md", content=document_text(n).encode())
            for n in range(DOCUMENTS)
        ],
        embedder=build_embedder("hash"),
    )
    documents = [o.document for o in outcomes if o.document is not None]
    assert len(documents) == DOCUMENTS, outcomes
    first_chunk = {
        doc.pk: Chunk.objects.filter(document=doc).order_by("chunk_order")[0] for doc in documents
    }
    User = get_user_model()
    User.objects.bulk_create(User(username=f"asker{n}") for n in range(ASKERS))
    user_ids = list(User.objects.filter(username__startswith="asker").values_list("pk", flat=True))
    Membership.objects.bulk_create(Membership(user_id=pk, project=project) for pk in user_ids)
    conversations = answers // TURNS_PER_CONVERSATION
    conversation, message, cited = (
        Conversation._meta.db_table,
        Message._meta.db_table,
        CitedDocument._meta.db_table,
    )
    ids = [doc.pk for doc in documents]
    chunk_ids = [first_chunk[pk].pk for pk in ids]
    hashes = [chunk_hash(first_chunk[pk].text) for pk in ids]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {conversation} (user_id, title, source, created_at, updated_at) "
            f"SELECT (%s::bigint[])[1 + g %% %s], 'Bench ' || g, 'browser', now(), now() "
            f"FROM generate_series(0, %s - 1) g",
            [user_ids, len(user_ids), conversations],
        )
        cursor.execute(f"SELECT min(id) FROM {conversation}")
        first_conversation = cursor.fetchone()[0]
        # a question then its answer, per turn; answers are the even offsets + 1
        cursor.execute(
            f"INSERT INTO {message} (conversation_id, role, content, citations, "
            f"refusal_reason, meta, created_at) "
            f"SELECT %s + t / %s, CASE WHEN r = 0 THEN 'user' ELSE 'assistant' END, "
            f"CASE WHEN r = 0 THEN 'Where does service ' || (t %% 50) || ' store events?' "
            f"ELSE 'It stores them in its store [1].' END, '[]'::jsonb, '', "
            f"'{{}}'::jsonb, now() "
            f"FROM generate_series(0, %s - 1) t, generate_series(0, 1) r ORDER BY t, r",
            [first_conversation, TURNS_PER_CONVERSATION, answers],
        )
        cursor.execute(
            f"INSERT INTO {cited} (message_id, document_id, version, chunk_id, chunk_hash, "
            f"status, canonical_type) "
            f"SELECT m.id, (%s::bigint[])[1 + k], 1, (%s::bigint[])[1 + k], "
            f"(%s::text[])[1 + k], 'accepted', 'decision' "
            f"FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM {message} "
            f"WHERE role = 'assistant') m, "
            f"LATERAL (VALUES (m.n %% %s), ((m.n * 7 + 1) %% %s), "
            f"(CASE WHEN m.n %% 5 = 0 THEN 0 END)) AS c(k) "
            f"WHERE c.k IS NOT NULL",
            [ids, chunk_ids, hashes, DOCUMENTS, DOCUMENTS],
        )
        cursor.execute(f"ANALYZE {conversation}; ANALYZE {message}; ANALYZE {cited}")
    return {"documents": documents, "project": project}


def measure_supersede(old: Any, new: Any) -> dict[str, Any]:
    from canonical import services
    from chat.drift import answer_drifts_mark
    from chat.models import AnswerDrift
    from kb.curation import AuditContext, ChangeSource
    from kb.drift import citing_count

    count_ms, count = timed(lambda: citing_count([old.pk]))
    by = AuditContext(actor=None, source=ChangeSource.CLI, reason="benchmark", actor_name="bench")
    supersede_ms, _ = timed(lambda: services.record_supersede(old=old, new=new, by=by))
    job_ms, marked = timed(lambda: answer_drifts_mark(document_id=old.pk))
    again_ms, again = timed(lambda: answer_drifts_mark(document_id=old.pk))
    return {
        "citing_answers": count.answers,
        "citing_people": count.people,
        "count_ms": round(count_ms, 1),
        "supersede_and_enqueue_ms": round(supersede_ms, 1),
        "drift_job_ms": round(job_ms, 1),
        "marked": marked.get("superseded", 0),
        "rerun_ms": round(again_ms, 1),
        "rerun_marked": sum(again.values()),
        "drift_rows": AnswerDrift.objects.filter(document=old).count(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100_000)
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args()

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django_tenants.utils import schema_context

    from chat.models import CitedDocument, Message
    from chat.notifications import notification_unread_count
    from portal.tenants.models import Tenant
    from portal.tenants.services import tenant_create

    schema = f"bench_drift_{os.getpid()}"
    tenant = tenant_create(
        schema_name=schema, domain=f"{schema.replace('_', '-')}.localhost", name="Bench"
    )
    result: dict[str, Any] = {}
    try:
        with schema_context(schema):
            populate_ms, world = timed(lambda: populate(args.answers))
            documents = world["documents"]
            result["answers"] = Message.objects.filter(role="assistant").count()
            result["citation_rows"] = CitedDocument.objects.count()
            result["populate_s"] = round(populate_ms / 1000, 1)
            result["hot_document"] = measure_supersede(documents[0], documents[-1])
            result["ordinary_document"] = measure_supersede(documents[1], documents[-1])
            asker = get_user_model().objects.get(username="asker1")
            bell_ms, unread = timed(lambda: notification_unread_count(user=asker))
            result["bell"] = {"unread": unread, "count_ms": round(bell_ms, 1)}
    finally:
        Tenant.objects.filter(pk=tenant.pk).first().delete(force_drop=True)
    if args.json:
        print(json.dumps(result))
        return
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
