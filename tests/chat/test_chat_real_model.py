"""The whole turn on the real embedding model and shipped thresholds: gold questions answered
with the right sources cited, off-topic questions refused before any provider call."""

from __future__ import annotations

import json

import pytest

from chat.services import message_send
from kb.demo import DEMO_CORPUS_DIR
from tests.chat.conftest import REAL_HANDBOOK_KEY
from tests.conftest import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.real_model]

QUESTIONS = [
    json.loads(line)
    for line in (DEMO_CORPUS_DIR.parent / "QUESTIONS.jsonl").read_text().splitlines()
    if line.strip()
]
ANSWERABLE = [q for q in QUESTIONS if not q.get("expect_refusal")]
OFF_TOPIC = [q for q in QUESTIONS if q.get("expect_refusal")]


@pytest.fixture
def real_model(settings, real_handbook):
    settings.KB = {**settings.KB, "EMBEDDING_PROVIDER": "local"}
    return real_handbook


@pytest.fixture
def reader(alpha, real_model):
    return make_user(alpha, "real-reader", projects={REAL_HANDBOOK_KEY: "reader"})


def test_gold_questions_are_answered_citing_a_gold_document(alpha, reader):
    hits, misses = 0, []
    for item in ANSWERABLE:
        turn = message_send(user=reader, question=item["q"])
        cited = {c["slug"] for c in turn.citations}
        if turn.refusal_reason is None and cited & set(item["slugs"]):
            hits += 1
        else:
            misses.append((item["q"], turn.refusal_reason, sorted(cited)))
        assert turn.meta["citation_check"]["dropped"] == []
    print(f"\nchat gold questions: {hits}/{len(ANSWERABLE)} cite a gold source; misses={misses}")
    # 20 gold questions: at least 17 must cite a gold source (measured: see the report)
    assert hits >= 17, misses


def test_off_topic_questions_are_refused(alpha, reader, recording_provider):
    for item in OFF_TOPIC:
        turn = message_send(user=reader, question=item["q"])
        assert turn.refusal_reason == "no_relevant_context", (item["q"], turn.answer)
        assert turn.citations == []
    assert recording_provider.calls == []


def test_a_rejected_approach_question_warns_about_it(alpha, reader):
    turn = message_send(user=reader, question="Should we use Memcached for sessions?")
    assert turn.refusal_reason is None
    slugs = {c["slug"]: c for c in turn.citations}
    assert "rej-memcached" in slugs, turn.citations
    assert "Memcached" in turn.answer
