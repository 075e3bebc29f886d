"""chat_benchmark: answer quality of a provider on a gold set (the twin of kb_benchmark)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from chat.evaluation import (
    GoldsetError,
    QuestionScore,
    load_answer_goldset,
    reader_of_every_project,
    run_goldset,
    summarise_by_kind,
)
from chat.providers import ProviderError, get_provider
from portal.commands import acting_user, command_tenant

BENCH_USERNAME = "chat-benchmark"
COLUMNS = (
    "fact_recall",
    "gold_citation",
    "citation_precision",
    "refusal_accuracy",
    "refusals_right",
    "stale_leaks",
    "p50_ms",
    "p95_ms",
)
KIND_COLUMNS = ("questions", "fact_recall", "gold_citation", "refusal_accuracy", "stale_leaks")


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
            "--as-user",
            dest="as_user",
            help="answer as this user (default: a plain reader of every project of the tenant)",
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
        parser.add_argument("--by-kind", action="store_true", help="a table per question kind")

    def handle(self, *args: Any, **options: Any) -> None:
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
        with command_tenant(options["tenant"]):
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
        if options["by_kind"]:
            for report in reports:
                self.stdout.write(f"\n{report.provider}, by kind of question")
                self.stdout.write(f"{'kind':<18}" + "".join(f"{c:>18}" for c in KIND_COLUMNS))
                for kind, metrics in summarise_by_kind(list(report.scores)).items():
                    self.stdout.write(
                        f"{kind or '-':<18}" + "".join(f"{metrics[c]:>18}" for c in KIND_COLUMNS)
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
    """The named active user, or a saved throwaway reader of every project (a plain reader,
    as the people who ask; rolled back with the run)."""
    if username:
        return acting_user(username)
    return reader_of_every_project(BENCH_USERNAME)


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
        problems.append(f"stale_leak{list(q.stale) if q.stale else ''}")
    return f"\n[{provider}] line {q.line}: {q.q}\n  {'; '.join(problems)}\n  > {score.answer}"


def _has(answer: str, fact: tuple[str, ...], refusal: str | None) -> bool:
    from chat.evaluation import fact_found

    return refusal is None and fact_found(answer, fact)
