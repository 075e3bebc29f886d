"""Document frequencies for IDF: counted per query lexeme, equal to ts_stat over every chunk."""

from __future__ import annotations

import pytest
from django.db import connection

from kb.models import Chunk
from kb.retrieval.frequencies import document_frequencies, reset_keyword_stats
from kb.services import document_ingest
from portal.access.services import project_ensure

DOCS = {
    "cache.md": "# Cache\n\nRedis is the cache. The cache key is tenant:user.\n",
    "queue.md": "# Queue\n\nThe queue retries deliveries; the cache is not a queue.\n",
    "leave.md": "# Leave\n\nHoliday leave is booked in the HR tool, see docs/hr.md.\n",
}


@pytest.fixture
def project(alpha):
    reset_keyword_stats()
    project = project_ensure(key="df-counts")
    for path, text in DOCS.items():
        document_ingest(project=project, source_path=path, content=text)
    yield project
    reset_keyword_stats()


def ts_stat() -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT word, ndoc FROM ts_stat('SELECT search_vector FROM {Chunk._meta.db_table} "
            "WHERE search_vector IS NOT NULL')"
        )
        return dict(cursor.fetchall())


def test_counts_equal_ts_stat_for_every_lexeme(project):
    expected = ts_stat()
    assert {"cach", "queue", "docs/hr.md"} <= expected.keys()  # a file name: one lexeme
    with connection.cursor() as cursor:
        total, counted = document_frequencies(cursor, [*expected, "zebra"])
        assert total == Chunk.objects.exclude(search_vector=None).count()
        assert counted == {**expected, "zebra": 0}
        # the second call is answered from the cache, with the same figures
        assert document_frequencies(cursor, ["queue", "cach"]) == (
            total,
            {"queue": expected["queue"], "cach": expected["cach"]},
        )


def test_an_ingest_refreshes_the_counts(project):
    with connection.cursor() as cursor:
        before_total, before = document_frequencies(cursor, ["queue", "kafka"])
        assert before["kafka"] == 0
        document_ingest(
            project=project, source_path="kafka.md", content="# Kafka\n\nKafka is the queue.\n"
        )
        total, after = document_frequencies(cursor, ["queue", "kafka"])
    assert total > before_total
    assert after == {"queue": before["queue"] + 1, "kafka": 1}
    assert after == {lex: ts_stat()[lex] for lex in ("queue", "kafka")}
