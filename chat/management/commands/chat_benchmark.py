"""chat_benchmark: answer quality of a provider on a gold set (the twin of kb_benchmark)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django_tenants.utils import schema_context

from chat.evaluation import GoldsetError, QuestionScore, load_answer_goldset, run_goldset
from chat.providers import ProviderError, get_provider
from portal.tenants.models import Tenant

BENCH_USERNAME = "chat-benchmark"
COLUMNS = (
    "fact_recall",
    "gold_citation",
    "citation_precision",
    "refusal_accuracy",
    "stale_leaks",
    "p50_ms",
    "p95_ms",
)


class _Rollback(Exception):
    """Raised to undo everything a benchmark run wrote (conversations, logs, content gaps)."""


class Command(BaseCommand):
    help = (
        "Run every gold question through the chat turn and score the answers: fact recall, "
        "gold-citation rate, citation precision, refusal accuracy, stale leaks, latency. "
        "Nothing the run writes is kept."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant schema")
        parser.add_argument("--goldset", required=True, type=Path, help="gold-set JSONL")
        parser.add_argument(
            "--as-user", dest="as_user", help="answer as this user (default: sees everything)"
        )
        parser.add_argument(
            "--provider",
            action="append",
            help="answer provider name, repeatable (default: the configured one)",
        )
        parser.add_argument("--json", action="store_true", help="machine output only")
        parser.add_argument(
            "--show-failures", action="store_true", help="print every question that lost a point"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not Tenant.objects.filter(schema_name=options["tenant"]).exists():
            raise CommandError(f"No tenant with schema {options['tenant']!r}.")
        if not options["goldset"].is_file():
            raise CommandError(f"No such gold set: {options['goldset']}")
        try:
            questions = load_answer_goldset(options["goldset"])
        except GoldsetError as exc:
            raise CommandError(f"{options['goldset']}: {exc}") from exc
        if not questions:
            raise CommandError("The gold set has no questions.")
        try:
            providers = [get_provider(name) for name in options["provider"] or [None]]
        except ProviderError as exc:
            raise CommandError(exc.message) from exc
        reports = []
        with schema_context(options["tenant"]):
            for provider in providers:
                reports.append(self._run(provider, questions, options))
        if options["json"]:
            self.stdout.write(json.dumps([r.to_dict() for r in reports], indent=2))
            return
        self.stdout.write(f"{options['goldset'].name}: {len(questions)} questions")
        self.stdout.write(f"{'provider':<12}" + "".join(f"{c:>20}" for c in COLUMNS))
        for report in reports:
            self.stdout.write(
                f"{report.provider:<12}" + "".join(f"{report.metrics[c]:>20}" for c in COLUMNS)
            )
        if options["show_failures"]:
            for report in reports:
                for score in report.failures():
                    self.stdout.write(_describe(report.provider, score))

    def _run(self, provider: Any, questions: list[Any], options: dict[str, Any]) -> Any:
        report = None
        try:
            with transaction.atomic():
                user = _acting_user(options["as_user"])
                try:
                    report = run_goldset(user=user, questions=questions, provider=provider)
                except ProviderError as exc:
                    raise CommandError(f"{provider.name}: {exc.message}") from exc
                raise _Rollback
        except _Rollback:
            pass
        return report


def _acting_user(username: str | None) -> Any:
    """The named active user, or a throwaway superuser (rolled back with the run)."""
    User = get_user_model()
    if username:
        user = User.objects.filter(username=username, is_active=True).first()
        if user is None:
            raise CommandError(f"No active user {username!r} in this tenant.")
        return user
    return User.objects.create(username=BENCH_USERNAME, is_superuser=True, is_active=True)


def _describe(provider: str, score: QuestionScore) -> str:
    q = score.question
    problems = []
    if not score.refusal_correct:
        problems.append(f"refusal={score.refusal_reason}")
    if not q.refuse and score.facts_found < len(q.facts):
        missing = [
            fact[0] for fact in q.facts if not _has(score.answer, fact, score.refusal_reason)
        ]
        problems.append(f"missing={missing}")
    if not q.refuse and not score.gold_cited:
        problems.append(f"cited={list(score.cited_slugs)} gold={list(q.slugs)}")
    if score.stale_leak:
        problems.append("stale_leak")
    return f"\n[{provider}] line {q.line}: {q.q}\n  {'; '.join(problems)}\n  > {score.answer}"


def _has(answer: str, fact: tuple[str, ...], refusal: str | None) -> bool:
    from chat.evaluation import fact_found

    return refusal is None and fact_found(answer, fact)
