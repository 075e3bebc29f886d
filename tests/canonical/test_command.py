"""kb_record: the command-line path through the same services and audit trail."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from canonical.models import RecordChange
from kb.models import Document, Edge
from tests.canonical.conftest import make_doc

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("kb_record", *args, stdout=out)
    return out.getvalue()


def test_status_priority_and_supersede_from_the_cli(alpha):
    old = make_doc("cli-p", "log-format-v1")
    new = make_doc("cli-p", "log-format-v2")
    base = ["--tenant", "alpha", "--project", "cli-p"]
    out = run("log-format-v1", *base, "--priority", "85", "--actor", "ops", "--json")
    assert json.loads(out)["retrieval_priority"] == 85
    run("log-format-v1", *base, "--supersede-by", "log-format-v2", "--reason", "v2 ships")
    with alpha.scope():
        assert Document.objects.get(pk=old.pk).canonical_status == "superseded"
        assert Edge.objects.filter(from_document=new, to_document=old, edge_type="supersedes")
        rows = list(
            RecordChange.objects.filter(
                document=old, field__in=["retrieval_priority", "canonical_status"]
            )
            .order_by("id")
            .values_list("field", "to_value", "source", "actor", "reason")
        )
    assert rows[0] == ("retrieval_priority", "85", "cli", None, "")
    assert rows[1] == ("canonical_status", "superseded", "cli", None, "v2 ships")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ghost", "--status", "accepted"], "No record 'ghost'"),
        (["cli-rec", "--status", "draft"], "Cannot change status from accepted to draft"),
        (["cli-rec", "--priority", "300"], "between 0 and 100"),
        (["cli-rec", "--status", "finished"], "Unknown status"),
        (["cli-rec", "--status", "deprecated"], "Give a reason"),
        (["cli-rec", "--supersede-by", "cli-rec-v2"], "Give a reason"),
    ],
)
def test_cli_errors_are_clear(alpha, args, message):
    make_doc("cli-p", "cli-rec")
    make_doc("cli-p", "cli-rec-v2")
    with pytest.raises(CommandError, match=message):
        run(*args, "--tenant", "alpha", "--project", "cli-p")


def test_unknown_tenant(alpha):
    with pytest.raises(CommandError, match="No tenant"):
        run("x", "--tenant", "nope", "--project", "p", "--status", "accepted")
