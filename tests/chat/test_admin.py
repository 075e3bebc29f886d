"""Editors' console: content gaps by count with a resolve action, read-only chat log, scoped."""

from __future__ import annotations

import pytest

from chat.models import ChatLog, ContentGap
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

GAPS = "/admin/chat/contentgap/"
LOGS = "/admin/chat/chatlog/"


@pytest.fixture
def rows(alpha):
    ContentGap.objects.create(
        project_key="adm-mine",
        normalised_question="how to deploy",
        example_question="How to deploy?",
        count=3,
    )
    ContentGap.objects.create(
        project_key="adm-mine",
        normalised_question="where are logs",
        example_question="Where are logs?",
        count=9,
    )
    ContentGap.objects.create(
        project_key="adm-theirs",
        normalised_question="secret roadmap",
        example_question="Secret roadmap?",
        count=5,
    )
    ContentGap.objects.create(
        project_key="",
        normalised_question="unscoped question",
        example_question="Unscoped?",
        count=1,
    )
    ChatLog.objects.create(question="mine question", project_keys=["adm-mine"])
    ChatLog.objects.create(question="theirs question", project_keys=["adm-theirs"])
    ChatLog.objects.create(question="mixed question", project_keys=["adm-mine", "adm-theirs"])
    editor = make_user(alpha, "adm-editor", projects={"adm-mine": "editor", "adm-theirs": "reader"})
    return editor  # fmt: skip


def _client(info, user):
    client = info.client()
    client.force_login(user)
    return client


def test_editors_see_only_gaps_of_projects_they_edit_biggest_first(alpha, rows):
    html = _client(alpha, rows).get(GAPS).content.decode()
    assert "where are logs" in html and "how to deploy" in html
    assert html.index("where are logs") < html.index("how to deploy")
    assert "secret roadmap" not in html and "unscoped question" not in html


def test_mark_resolved_action(alpha, rows):
    gap = ContentGap.objects.get(normalised_question="how to deploy")
    response = _client(alpha, rows).post(
        GAPS, {"action": "mark_resolved", "_selected_action": [gap.pk]}, follow=True
    )
    assert response.status_code == 200
    gap.refresh_from_db()
    assert gap.resolved


def test_editors_cannot_resolve_gaps_of_other_projects(alpha, rows):
    theirs = ContentGap.objects.get(normalised_question="secret roadmap")
    _client(alpha, rows).post(GAPS, {"action": "mark_resolved", "_selected_action": [theirs.pk]})
    theirs.refresh_from_db()
    assert not theirs.resolved
    assert _client(alpha, rows).get(f"{GAPS}{theirs.pk}/change/").status_code in (302, 404)


def test_chat_log_is_read_only_and_scoped(alpha, rows):
    client = _client(alpha, rows)
    html = client.get(LOGS).content.decode()
    assert "mine question" in html
    assert "theirs question" not in html and "mixed question" not in html
    log = ChatLog.objects.get(question="mine question")
    page = client.get(f"{LOGS}{log.pk}/change/")
    assert page.status_code == 200
    assert 'name="question"' not in page.content.decode()  # no editable field
    assert client.get(f"{LOGS}add/").status_code == 403


def test_superusers_see_everything(alpha, rows):
    root = make_user(alpha, "adm-root", superuser=True)
    html = _client(alpha, root).get(GAPS).content.decode()
    assert "secret roadmap" in html and "unscoped question" in html


def test_readers_do_not_get_the_console(alpha, rows):
    reader = make_user(alpha, "adm-reader", projects={"adm-mine": "reader"})
    response = _client(alpha, reader).get(GAPS)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
