"""Knowledge health per project (issue 29 part 3): the fact check on the demo handbook asks
one generated question per accepted record through the real chat turn (rolled back) and
lists the records whose fact the answer does not state; the console page and `kb_health`
show it with review-due records, open conflicts and proposals and content gaps, to the
project's editors only; the periodic job keeps it fresh."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from chat.health import (
    CHECK_USERNAME,
    NO_FACT,
    NOT_ANSWERED,
    OK,
    OTHER_SOURCE,
    accepted_records,
    fact_check,
    fact_status,
    health_report,
    key_fact,
)
from chat.models import ChatLog, ContentGap, Conversation, HealthCheck, Proposal, ProposalKind
from chat.tasks import kb_health_all
from kb.models import CanonicalType, Document
from kb.worker import run_queued_tasks
from tests.chat.conftest import HANDBOOK_KEY
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

PAGE = f"/admin/chat/healthcheck/project/{HANDBOOK_KEY}/"


def test_a_records_fact_is_a_labelled_item_else_a_table_row_else_a_value_under_a_heading():
    item = key_fact(
        "Portal database recovery", [("## Backups\n\n- PITR window: 35 days.\n", "Backups")]
    )
    assert item is not None
    assert (item.question, item.value) == (
        "Portal database recovery: what is the PITR window?",
        "35 days",
    )
    table = "| Plan | Read | Burst |\n|---|---|---|\n| Starter | 600/min | 2x |\n"
    row = key_fact("Rate limits", [(table, "Limits")])
    assert row is not None and row.question == "Rate limits: what is the read of Starter?"
    assert row.value.startswith("600")
    prose = key_fact("Parking", [("The car park closes at 22:00 every day.", "Closing time")])
    assert prose is not None
    assert (prose.question, prose.value) == ("Parking: what is the closing time?", "22:00")
    # a name, or code, is no fact to check by; nor is a heading that asks
    assert key_fact("Team", [("The owner is Platform Team.", "Owner")]) is None
    assert key_fact("Runbook", [("Page at 22:00.", "When to page")]) is None


def test_the_fact_check_on_the_demo_handbook(alpha, handbook):
    conversations, logs, gaps = (
        Conversation.objects.count(),
        ChatLog.objects.count(),
        ContentGap.objects.count(),
    )
    check = fact_check(project=handbook)
    by_slug = {row["slug"]: row for row in check.results}
    records = accepted_records(handbook)
    # every accepted record but the rejected approaches is asked about once
    assert set(by_slug) == {d.slug for d in records}
    assert not Document.objects.filter(
        slug__in=by_slug, canonical_type=CanonicalType.REJECTED_APPROACH
    ).exists()
    asked = [row for row in check.results if row["status"] != NO_FACT]
    assert check.records == len(asked) >= 12
    ok = [row for row in asked if row["status"] == OK]
    assert len(ok) >= len(asked) // 2
    logging = by_slug["std-logging"]
    assert logging["status"] == OK and "budget" in logging["question"]
    assert "std-logging" in logging["cited"]
    # rolled back: the check leaves no conversation, log, content gap or reader behind
    assert (Conversation.objects.count(), ChatLog.objects.count(), ContentGap.objects.count()) == (
        conversations,
        logs,
        gaps,
    )
    from django.contrib.auth import get_user_model

    assert not get_user_model().objects.filter(username=CHECK_USERNAME).exists()
    failing = {row["slug"] for row in asked if row["status"] in (NOT_ANSWERED, OTHER_SOURCE)}
    assert failing  # the demo has records whose own fact the chat does not state
    editor = make_user(alpha, "health-editor", projects={HANDBOOK_KEY: "editor"})
    report = health_report(user=editor, project=handbook)
    assert {row["slug"] for row in report.failing} == failing


def test_a_fact_stated_leading_with_another_document_is_answered_from_another_source():
    said = "Closing time: 22:00 for the visitor car park [1]."
    assert (
        fact_status(
            value="22:00", answer=said, refused=False, cited=("site-notes",), slug="site-notes"
        )
        == OK
    )
    assert (
        fact_status(
            value="22:00",
            answer=said,
            refused=False,
            cited=("copy", "site-notes"),
            slug="site-notes",
        )
        == OTHER_SOURCE
    )
    assert (
        fact_status(
            value="10 pm", answer=said, refused=False, cited=("site-notes",), slug="site-notes"
        )
        == NOT_ANSWERED
    )
    assert (
        fact_status(value="22:00", answer="", refused=True, cited=(), slug="site-notes")
        == NOT_ANSWERED
    )


def test_the_console_page_and_the_command_show_the_projects_health(alpha, handbook):
    editor = make_user(alpha, "health-editor", projects={HANDBOOK_KEY: "editor"})
    outsider = make_user(alpha, "health-outsider", projects={"health-elsewhere": "editor"})
    reader = make_user(alpha, "health-reader", projects={HANDBOOK_KEY: "reader"})
    ContentGap.objects.create(
        project_key=HANDBOOK_KEY,
        normalised_question="who owns the pager",
        example_question="Who owns the pager?",
        count=7,
    )
    Proposal.objects.create(
        project=handbook, kind=ProposalKind.CONTENT_GAP, question="Is there a staging Redis?"
    )
    fact_check(project=handbook)

    client = alpha.client()
    client.force_login(editor)
    listing = client.get("/admin/chat/healthcheck/").content.decode()
    assert HANDBOOK_KEY in listing
    page = client.get(PAGE)
    assert page.status_code == 200
    html = page.content.decode()
    assert "Who owns the pager?" in html and "asked 7×" in html
    assert "Is there a staging Redis?" in html
    assert "not answered right" in html
    for user, status in ((outsider, 404), (reader, 302)):
        other = alpha.client()
        other.force_login(user)
        assert other.get(PAGE).status_code == status
    assert HANDBOOK_KEY not in _text(alpha, outsider, "/admin/chat/healthcheck/")

    out = StringIO()
    call_command("kb_health", tenant=alpha.schema, project=HANDBOOK_KEY, json=True, stdout=out)
    report = json.loads(out.getvalue())
    assert report["project"] == HANDBOOK_KEY
    assert {"question": "Who owns the pager?", "count": 7} in report["gaps"]
    assert report["proposals"][0]["question"] == "Is there a staging Redis?"
    assert report["check"]["records"] >= 12
    text = StringIO()
    call_command("kb_health", tenant=alpha.schema, project=HANDBOOK_KEY, stdout=text)
    assert "Content gaps (1)" in text.getvalue() and "Fact check:" in text.getvalue()


def _text(info, user, url: str) -> str:
    client = info.client()
    client.force_login(user)
    return client.get(url).content.decode()


def test_the_periodic_job_refreshes_the_check(alpha, handbook):
    assert not HealthCheck.objects.filter(project=handbook).exists()
    kb_health_all.enqueue()
    run_queued_tasks()
    check = HealthCheck.objects.get(project=handbook)
    assert check.records >= 12
