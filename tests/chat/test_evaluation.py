"""The answer-quality harness: gold-set parsing, fact matching, stale leaks, and the command."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from chat.evaluation import (
    GoldQuestion,
    GoldsetError,
    QuestionScore,
    fact_found,
    load_answer_goldset,
    stale_leak,
    summarise,
)
from chat.models import ChatLog, ContentGap, Conversation
from kb.demo import DEMO_CORPUS_DIR

GOLDSET = DEMO_CORPUS_DIR.parent / "ANSWERS.jsonl"


def test_the_committed_gold_set_is_well_formed_and_covers_the_question_kinds():
    questions = load_answer_goldset(GOLDSET)
    assert len(questions) >= 60
    refusals = [q for q in questions if q.refuse]
    assert len(refusals) >= 3 and all(not q.facts for q in refusals)
    answerable = [q for q in questions if not q.refuse]
    assert all(q.facts and q.slugs for q in answerable)
    slugs = {path.stem for path in DEMO_CORPUS_DIR.glob("*.md")}
    assert {s for q in answerable for s in q.slugs} <= slugs  # no gold slug is made up
    conversations = [q.conversation for q in questions if q.conversation]
    assert len(conversations) > len(set(conversations))  # follow-ups chain


def test_fact_matching_ignores_case_markup_and_dash_style():
    assert fact_found("Failover takes **6–8 s** [1].", ["6-8 s"])
    assert fact_found("Set `maxmemory-policy volatile-lru` [2].", ["volatile-lru"])
    assert not fact_found("Failover is quick [1].", ["6-8 s", "six seconds"])


def test_facts_are_matched_on_word_boundaries():
    assert not fact_found("The notifier uses a queue [1].", ["SES"])
    assert not fact_found("It takes a little while [1].", ["TTL"])
    assert not fact_found("Retention is 350 days [1].", ["35 days"])
    assert fact_found("Keys carry a TTL of 72 h [1].", ["TTL"])
    assert fact_found("Costs €2,980 per blade [2].", ["2,980"])
    assert fact_found("Run wsctl reset --site SOL [1].", ["wsctl reset"])


def test_a_stale_value_stated_as_current_is_a_leak():
    citations = [{"n": 1, "canonical_status": "accepted"}]
    stale = ["14 days"]
    assert stale_leak("The PITR window is 14 days [1].", citations, stale)
    assert not stale_leak(
        "The PITR window is 35 days [1]. Meeting notes say 14 days, but the runbook is the "
        "accepted record [2].",
        citations,
        stale,
    )
    assert not stale_leak("The window was 14 days until March [1].", citations, stale)


def test_a_stale_source_quoted_without_its_status_is_a_leak():
    citations = [
        {"n": 1, "canonical_status": "accepted"},
        {"n": 2, "canonical_status": "superseded"},
    ]
    assert stale_leak("Cluster [1]. The node had 24 GB [2].", citations)
    assert not stale_leak("Cluster [1]. ADR-0003 (superseded) said: 24 GB [2].", citations)
    assert not stale_leak("Cluster [1].", citations[:1])


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 1"),
        ('{"facts": []}', "line 1"),
        ('{"q": "x", "facts": [["a"]], "refuse": false}', "needs gold slugs"),
        ('{"q": "x", "facts": [[]], "slugs": ["a"]}', "at least one phrasing"),
    ],
)
def test_a_bad_gold_set_line_is_reported_with_its_number(tmp_path, line, message):
    path = tmp_path / "gold.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(GoldsetError, match=message):
        load_answer_goldset(path)


def _score(q: GoldQuestion, **fields) -> QuestionScore:
    values: dict[str, Any] = {
        "answer": "",
        "refusal_reason": None,
        "cited_slugs": (),
        "facts_found": 0,
        "refusal_correct": True,
        "gold_cited": False,
        "stale_leak": False,
        "latency_ms": 10.0,
    }
    values.update(fields)
    return QuestionScore(question=q, **values)


def test_the_summary_counts_facts_citations_refusals_and_leaks():
    a = GoldQuestion(q="a", facts=(("x",), ("y",)), slugs=("s",))
    b = GoldQuestion(q="b", facts=(("z",),), slugs=("t",))
    off = GoldQuestion(q="c", refuse=True)
    metrics = summarise(
        [
            _score(a, facts_found=2, gold_cited=True, cited_slugs=("s", "u")),
            _score(b, facts_found=0, refusal_reason="no_relevant_context", refusal_correct=False),
            _score(off, refusal_reason="no_relevant_context", latency_ms=30.0, stale_leak=True),
        ]
    )
    assert metrics["fact_recall"] == round(2 / 3, 3)
    assert metrics["gold_citation"] == 0.5
    assert metrics["citation_precision"] == 0.5
    assert metrics["refusal_accuracy"] == round(2 / 3, 3)
    assert metrics["stale_leaks"] == 1
    assert metrics["p50_ms"] == 10.0


@pytest.mark.django_db
def test_the_command_scores_a_gold_set_and_keeps_nothing(alpha, handbook, tmp_path, settings):
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.2}  # hash embedder cosines sit near 0.3
    path = tmp_path / "gold.jsonl"
    lines = [
        {"q": "How do I fail over the Redis cluster when a primary is down?",
         "facts": [["CLUSTER FAILOVER"]], "slugs": ["rb-redis-failover"]},
        {"q": "What is the capital of Australia?", "refuse": True},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(line) for line in lines))
    before = (Conversation.objects.count(), ChatLog.objects.count(), ContentGap.objects.count())
    out = StringIO()
    call_command(
        "chat_benchmark", "--tenant", alpha.schema, "--goldset", str(path), "--json", stdout=out
    )
    report = json.loads(out.getvalue())[0]
    assert report["provider"] == "extractive"
    assert report["metrics"]["questions"] == 2
    rows = report["questions"]
    assert rows[1]["refusal_reason"] == "no_relevant_context" and rows[1]["refusal_correct"]
    assert rows[0]["refusal_reason"] is None and "rb-redis-failover" in rows[0]["cited"]
    after = (Conversation.objects.count(), ChatLog.objects.count(), ContentGap.objects.count())
    assert after == before  # the run is rolled back


@pytest.mark.django_db
def test_the_command_rejects_unknown_inputs(alpha, tmp_path):
    with pytest.raises(CommandError, match="No such gold set"):
        call_command("chat_benchmark", "--tenant", alpha.schema, "--goldset", "/nope.jsonl")
    with pytest.raises(CommandError, match="not configured"):
        call_command(
            "chat_benchmark", "--tenant", alpha.schema, "--goldset", str(GOLDSET),
            "--provider", "nope",
        )  # fmt: skip
    with pytest.raises(CommandError, match="No tenant"):
        call_command("chat_benchmark", "--tenant", "nope", "--goldset", str(GOLDSET))
