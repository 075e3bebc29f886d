"""Knowledge health per project: what an editor should look at, in one place.

- records due for review (canonical.selectors.records_review_due, the curation setting),
- open conflicts (chat.conflicts), open proposals (chat.proposals),
- content gaps, most asked first (chat.services' rollup),
- the fact check: one question per accepted record, generated from its title and a key fact
  of its own (a labelled list item, a table row, else a sentence with a value under a
  heading), asked through the real chat turn as a plain reader of the project, rolled back as
  the answer harness does. A record whose fact the answer does not state (or refuses), or
  states leading with another document (its first citation), is listed.

`fact_check` stores its result (chat.HealthCheck, one row per project); the queue refreshes
it on a schedule (chat.tasks.kb_health_all, settings.PERIODIC_TASKS) and `kb_health` prints it.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from canonical.selectors import records_review_due
from chat.answers.units import Unit, split_units
from chat.answers.values import DATE, NUMERIC_KINDS, PHONE, TIME, Value, same_value, values_in
from chat.conflicts.selectors import conflicts_for
from chat.evaluation import reader_of_every_project
from chat.models import Conflict, ConflictState, ContentGap, HealthCheck, Proposal, ProposalState
from chat.proposals.selectors import proposals_for
from chat.selectors import content_gaps_for
from chat.services import message_send
from kb.filters import SearchFilters
from kb.models import CanonicalStatus, CanonicalType, Chunk, Document
from portal.access.models import AnyUser, Project

CHECK_USERNAME = "kb-health-check"  # the throwaway reader the check asks as (rolled back)
MAX_LABEL_CHARS = 40  # a longer label or heading is a sentence, not the name of a fact
# The values a fact is checked by: ones an answer states the same way or not at all (a name
# or a code is too often part of the wording of the question itself).
FACT_KINDS = NUMERIC_KINDS | {DATE, TIME, PHONE}
LEAD_WORDS = 1  # a labelled fact states its value first: "PITR window: 35 days"
GAPS_SHOWN = 20

OK = "ok"
NOT_ANSWERED = "not_answered"
OTHER_SOURCE = "other_source"
NO_FACT = "no_fact"  # nothing in the record reads as a fact with a value: not asked


@dataclass(frozen=True, kw_only=True)
class Fact:
    """A record's own fact: the question it answers and the value the answer must state."""

    question: str
    value: str
    quote: str


@dataclass(frozen=True, kw_only=True)
class FactResult:
    document_id: int
    slug: str
    title: str
    status: str
    question: str = ""
    value: str = ""
    answer: str = ""
    cited: tuple[str, ...] = ()  # slugs, in citation order

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "cited": list(self.cited)}


# --- the fact of a record (pure) ----------------------------------------------------------


def _first_value(text: str) -> Value | None:
    found = [value for value in values_in(text) if value.kind in FACT_KINDS]
    return found[0] if found else None


def _leads(text: str, value: Value) -> bool:
    """The value is what the text starts by saying (within LEAD_WORDS words)."""
    return len(text[: value.start].split()) < LEAD_WORDS


# a leading step number ('1. Assess the cluster'), article or possessive names nothing
_ARTICLE = re.compile(r"^(?:\d+[.)]\s*)?(?:(?:the|a|an|their|its|our|your)\s+)?", re.IGNORECASE)
_ASKING = re.compile(r"^(?:when|how|what|why|who|where|which|read|see)\b", re.IGNORECASE)


def _named(label: str) -> str:
    """A label as a question names it: 'Status' -> 'status', 'The states' -> 'states',
    'PITR window' stays."""
    label = _ARTICLE.sub("", " ".join(label.split()))
    return label[:1].lower() + label[1:] if label[1:2].islower() else label


def _item_fact(title: str, unit: Unit) -> Fact | None:
    """'PITR window: 35 days ...' -> what is the PITR window (the item's label names it)."""
    label = unit.label.strip()
    if not label or len(label) > MAX_LABEL_CHARS:
        return None
    body = unit.bare or unit.text
    rest = body[body.find(":") + 1 :].strip() if ":" in body else body
    value = _first_value(rest)
    if value is None or not _leads(rest, value):
        return None
    question = f"{title}: what is the {_named(label)}?"
    return Fact(question=question, value=value.text, quote=unit.text)


_ROW_CELL = re.compile(r"(?P<header>[^:;]{1,60}):\s*(?P<cell>[^;]+)")


def _row_fact(title: str, unit: Unit) -> Fact | None:
    """'Starter — Read (GET): 600/min; ...' -> what is the Read (GET) of Starter (a row's
    first cell is what its values are about; the first other column with a value is asked)."""
    subject, sep, rest = (unit.bare or unit.text).partition(" — ")
    subject = subject.strip()
    if not sep or not re.search(r"[^\W\d_]", subject) or len(subject) > MAX_LABEL_CHARS:
        return None
    for cell in _ROW_CELL.finditer(rest):
        value = _first_value(cell["cell"])
        if value is not None and _leads(cell["cell"], value):
            header = _named(cell["header"].strip())
            question = f"{title}: what is the {header} of {subject}?"
            return Fact(question=question, value=value.text, quote=unit.text)
    return None


def _heading_fact(title: str, unit: Unit) -> Fact | None:
    """A sentence with a value under a heading -> what does the title say about the heading."""
    section = unit.section.strip()
    if not section or section == title or len(section) > MAX_LABEL_CHARS:
        return None
    if _ASKING.match(section):  # 'When to use this runbook' names no fact
        return None
    value = _first_value(unit.bare or unit.text)
    if value is None:
        return None
    question = f"{title}: what is the {_named(section)}?"
    return Fact(question=question, value=value.text, quote=unit.text)


def key_fact(title: str, chunks: list[tuple[str, str]]) -> Fact | None:
    """The record's key fact from its chunks ((text, section) in order): the first labelled
    item with a value, else the first table row with one, else the first sentence with a
    value under a heading of its own. Code lines are never facts."""
    units = [
        unit
        for text, section in chunks
        for unit in split_units(text, section=section)
        if unit.kind != "code" and not unit.alternative
    ]
    for rule, kind in ((_item_fact, "item"), (_row_fact, "row"), (_heading_fact, None)):
        for unit in units:
            if kind is not None and unit.kind != kind:
                continue
            fact = rule(title, unit)
            if fact is not None:
                return fact
    return None


def answered(answer: str, value: str) -> bool:
    """The answer states the value (as a value of the same kind, or word for word)."""
    expected = _first_value(value)
    if expected is None:
        return value.lower() in answer.lower()
    return any(same_value(expected, found) for found in values_in(answer))


def fact_status(
    *, value: str, answer: str, refused: bool, cited: tuple[str, ...], slug: str
) -> str:
    """How the chat did on a record's fact: not answered (refused, or the value is not
    stated), answered from another source (the answer leads with another document: its first
    citation), or OK."""
    if refused or not answered(answer, value):
        return NOT_ANSWERED
    if cited[:1] != (slug,):
        return OTHER_SOURCE
    return OK


# --- the check ----------------------------------------------------------------------------


def accepted_records(project: Project) -> QuerySet[Document]:
    return (
        Document.objects.alive()
        .filter(project=project, canonical_status=CanonicalStatus.ACCEPTED)
        .exclude(canonical_type__isnull=True)
        # a rejected approach states what was not chosen: not a fact to answer with
        .exclude(canonical_type=CanonicalType.REJECTED_APPROACH)
        .order_by("slug")
    )


def projects_to_check() -> QuerySet[Project]:
    """Projects of the current tenant with accepted records (the periodic job's list)."""
    return Project.objects.filter(
        pk__in=Document.objects.alive()
        .filter(canonical_status=CanonicalStatus.ACCEPTED)
        .values("project_id")
    ).order_by("key")


def record_fact(document: Document) -> Fact | None:
    chunks = Chunk.objects.filter(document=document).order_by("chunk_order")
    pieces = [
        (chunk.text, chunk.heading_path.split(" > ")[-1] if chunk.heading_path else "")
        for chunk in chunks
    ]
    return key_fact(document.title, pieces)


class _Rollback(Exception):
    pass


def _ask(user: AnyUser, project: Project, document: Document) -> FactResult:
    fact = record_fact(document)
    if fact is None:
        return FactResult(
            document_id=document.pk, slug=document.slug, title=document.title, status=NO_FACT
        )
    turn = message_send(
        user=user, question=fact.question, filters=SearchFilters(project_keys=(project.key,))
    )
    cited = tuple(dict.fromkeys(c.get("slug", "") for c in turn.citations or []))
    status = fact_status(
        value=fact.value,
        answer=turn.answer,
        refused=turn.refusal_reason is not None,
        cited=cited,
        slug=document.slug,
    )
    return FactResult(
        document_id=document.pk,
        slug=document.slug,
        title=document.title,
        status=status,
        question=fact.question,
        value=fact.value,
        answer=turn.answer,
        cited=cited,
    )


def fact_check(*, project: Project) -> HealthCheck:
    """Ask one generated question per accepted record of the project (rolled back: no
    conversation, log or content gap is kept) and store the results."""
    results: list[FactResult] = []
    project = Project.objects.get(pk=project.pk)  # the row as stored (the caller's may be stale)
    try:
        with transaction.atomic():
            user = reader_of_every_project(CHECK_USERNAME)
            results = [_ask(user, project, doc) for doc in accepted_records(project)]
            raise _Rollback
    except _Rollback:
        pass
    check, _ = HealthCheck.objects.update_or_create(
        project=project,
        defaults={
            "checked_at": timezone.now(),
            "records": sum(1 for r in results if r.status != NO_FACT),
            "results": [r.to_dict() for r in results],
        },
    )
    return check


# --- the report ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class HealthReport:
    project: Project
    review_due: list[Document]
    conflicts: list[Conflict]
    proposals: list[Proposal]
    gaps: list[ContentGap]
    check: HealthCheck | None
    failing: list[dict[str, Any]]  # the check's results that are not OK (nor without a fact)

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project.key,
            "review_due": [{"slug": d.slug, "title": d.title} for d in self.review_due],
            "conflicts": [
                {
                    "id": c.pk,
                    "record": c.record.slug,
                    "other": c.other.slug,
                    "record_value": c.record_value,
                    "other_value": c.other_value,
                }
                for c in self.conflicts
            ],
            "proposals": [
                {
                    "id": p.pk,
                    "kind": p.kind,
                    "document": p.document.slug if p.document else None,
                    "question": p.question,
                }
                for p in self.proposals
            ],
            "gaps": [{"question": g.example_question, "count": g.count} for g in self.gaps],
            "check": (
                {
                    "checked_at": self.check.checked_at.isoformat(),
                    "records": self.check.records,
                    "failing": self.failing,
                }
                if self.check
                else None
            ),
        }


def health_projects(*, user: AnyUser) -> QuerySet[Project]:
    """The projects whose health the user sees: those they edit."""
    return Project.objects.editable_by(user).order_by("key")


def health_report(*, user: AnyUser, project: Project) -> HealthReport:
    """The project's health as the editor `user` sees it (their projects only)."""
    if not health_projects(user=user).filter(pk=project.pk).exists():
        raise Project.DoesNotExist
    records = Document.objects.editable_by(user).filter(project=project)
    check = HealthCheck.objects.filter(project=project).first()
    return HealthReport(
        project=project,
        review_due=list(records_review_due(records, months=settings.CURATION_STALE_AFTER_MONTHS)),
        conflicts=list(conflicts_for(user=user).filter(project=project, state=ConflictState.OPEN)),
        proposals=list(proposals_for(user=user).filter(project=project, state=ProposalState.OPEN)),
        gaps=list(
            content_gaps_for(user=user)
            .filter(project_key=project.key, resolved=False)
            .order_by("-count", "-last_seen")[:GAPS_SHOWN]
        ),
        check=check,
        failing=[
            r
            for r in (check.results if check else [])
            if r["status"] in (NOT_ANSWERED, OTHER_SOURCE)
        ],
    )
