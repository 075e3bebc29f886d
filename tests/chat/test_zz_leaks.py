"""Nothing the chat tests commit outlives them (other apps count what a superuser sees)."""

from __future__ import annotations

import pytest

from chat.models import ChatLog, Conflict, ContentGap, Conversation, HealthCheck, Proposal
from kb.models import Document
from portal.access.models import Project

pytestmark = pytest.mark.django_db


def test_chat_tests_leave_no_committed_rows_behind(alpha):
    # runs last in tests/chat (file order); module fixtures have torn down by now
    assert not Project.objects.filter(key__startswith="chat-").exists()
    assert not Document.objects.filter(project__key__startswith="chat-").exists()
    assert not Conversation.objects.exists()
    assert not ChatLog.objects.exists()
    assert not ContentGap.objects.exists()
    assert not Conflict.objects.exists()
    assert not Proposal.objects.exists()
    assert not HealthCheck.objects.exists()
