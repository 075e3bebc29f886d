"""Retention: the purge removes only what is older than its setting (on a frozen clock)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import time_machine
from django.core.management import call_command
from django.utils import timezone

from chat.models import ChatLog, ContentGap, Conversation, Message
from kb.worker import enqueue_due_periodic_tasks, run_queued_tasks
from privacy.retention import retention_purge
from tests.conftest import make_user

NOW = dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.UTC)


def days_ago(days: float) -> time_machine.travel:
    return time_machine.travel(NOW - dt.timedelta(days=days), tick=False)


@pytest.fixture
def aged(alpha, settings):
    settings.RETENTION = {
        "CHAT_LOG_DAYS": 30,
        "CONVERSATION_DAYS": 90,
        "CONTENT_GAP_DAYS": None,
        "VERSION_DAYS": None,
    }
    user = make_user(alpha, "ret-user")
    rows = {}
    for name, age in (("log_old", 30.01), ("log_new", 29.99)):
        with days_ago(age):
            rows[name] = ChatLog.objects.create(user=user, question=name).pk
    for name, age in (("conv_old", 91), ("conv_new", 89)):
        with days_ago(age):
            conversation = Conversation.objects.create(user=user, title=name)
            Message.objects.create(conversation=conversation, role="user", content=name)
            rows[name] = conversation.pk
    with days_ago(400):
        rows["gap_old"] = ContentGap.objects.create(
            normalised_question="ret old gap", example_question="ret old gap?"
        ).pk
    return rows


def surviving(rows):
    return {
        "logs": set(ChatLog.objects.filter(pk__in=rows.values()).values_list("question", flat=True))
        & {"log_old", "log_new"},
        "conversations": set(
            Conversation.objects.filter(title__in=["conv_old", "conv_new"]).values_list(
                "title", flat=True
            )
        ),
        "gaps": ContentGap.objects.filter(pk=rows["gap_old"]).count(),
    }


def test_only_rows_older_than_the_setting_go(aged):
    with time_machine.travel(NOW, tick=False):
        assert timezone.now() == NOW
        report = retention_purge()
    assert report == {"chat_log": 1, "conversations": 1}  # content gaps are kept forever
    assert surviving(aged) == {"logs": {"log_new"}, "conversations": {"conv_new"}, "gaps": 1}
    assert not Message.objects.filter(content="conv_old").exists()
    assert Message.objects.filter(content="conv_new").exists()


def test_dry_run_counts_and_deletes_nothing(aged, capsys):
    with time_machine.travel(NOW, tick=False):
        call_command("retention_purge", "--tenant", "alpha", "--dry-run", "--json")
    output = json.loads(capsys.readouterr().out)
    assert output == {"dry_run": True, "tenants": {"alpha": {"chat_log": 1, "conversations": 1}}}
    assert surviving(aged) == {
        "logs": {"log_old", "log_new"},
        "conversations": {"conv_old", "conv_new"},
        "gaps": 1,
    }


def test_the_command_purges_every_tenant_when_none_is_named(aged, settings, capsys):
    settings.RETENTION = {**settings.RETENTION, "CONTENT_GAP_DAYS": 365}
    with time_machine.travel(NOW, tick=False):
        call_command("retention_purge")
    out = capsys.readouterr().out
    assert "alpha: deleted 1 chat_log, 1 conversations, 1 content_gaps" in out
    assert "beta: deleted 0 chat_log, 0 conversations, 0 content_gaps" in out
    assert surviving(aged) == {"logs": {"log_new"}, "conversations": {"conv_new"}, "gaps": 0}


def test_by_default_everything_is_kept(aged, settings, capsys):
    settings.RETENTION = {
        "CHAT_LOG_DAYS": None,
        "CONVERSATION_DAYS": None,
        "CONTENT_GAP_DAYS": None,
        "VERSION_DAYS": None,
    }
    with time_machine.travel(NOW + dt.timedelta(days=3650), tick=False):
        call_command("retention_purge", "--tenant", "alpha")
    out = capsys.readouterr().out
    assert "Kept forever (no retention set): chat_log, conversations, content_gaps" in out
    assert "alpha: nothing to purge" in out
    assert surviving(aged)["logs"] == {"log_old", "log_new"}


def test_workers_enqueue_the_purge_once_per_period_and_it_runs(aged, settings):
    settings.PERIODIC_TASKS = {"privacy.tasks.retention_purge_all": 3600}
    start = NOW.timestamp()
    assert enqueue_due_periodic_tasks(now=start) == ["privacy.tasks.retention_purge_all"]
    # a second worker in the same period finds it claimed
    assert enqueue_due_periodic_tasks(now=start + 60) == []
    with time_machine.travel(NOW, tick=False):
        assert run_queued_tasks() == 1
    assert surviving(aged) == {"logs": {"log_new"}, "conversations": {"conv_new"}, "gaps": 1}
    # the next period enqueues it again
    assert enqueue_due_periodic_tasks(now=start + 3600) == ["privacy.tasks.retention_purge_all"]
    assert run_queued_tasks() == 1


def test_a_zero_period_disables_the_periodic_purge(settings):
    settings.PERIODIC_TASKS = {"privacy.tasks.retention_purge_all": 0}
    assert enqueue_due_periodic_tasks(now=NOW.timestamp()) == []
