"""Run the background ingestion worker (any number, on any machine that reaches the database)."""

from __future__ import annotations

import logging
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from kb.worker import run_worker


class Command(BaseCommand):
    help = (
        "Process queued ingestion jobs of every tenant. Start as many as you like, on any "
        "machine with DATABASE_URL; Ctrl-C finishes the current job, a second Ctrl-C aborts "
        "it (it is requeued). Jobs of a worker that died are requeued by the others."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--worker-id", help="a stable name for this worker (default random)")
        parser.add_argument(
            "--batch", action="store_true", help="exit when the queue is empty (scripts, CI)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        logging.getLogger("django_tasks_db").setLevel(logging.INFO)
        run_worker(worker_id=options.get("worker_id"), batch=options["batch"])
