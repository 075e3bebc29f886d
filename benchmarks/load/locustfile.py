"""Load profile: employees searching and chatting against the demo tenant.

Run through benchmarks/load/run.sh, which starts gunicorn on loopback and writes the report.
"""

from __future__ import annotations

import itertools
import json
import os
import random
from pathlib import Path

from locust import HttpUser, between, task

HOST_HEADER = os.environ.get("LOAD_TENANT_HOST", "demo.localhost")
QUESTIONS = [
    json.loads(line)["q"]
    for line in (Path(__file__).resolve().parents[2] / "kb" / "demo_corpus" / "QUESTIONS.jsonl")
    .read_text()
    .splitlines()
    if line.strip()
]
_user_numbers = itertools.count(1)
PREFIXES = ("", "Quick question: ", "Can you tell me: ", "I need to know ", "Remind me, ")


def question() -> str:
    """A gold question, varied so that almost no query text repeats (no query-cache hits)."""
    return (
        f"{random.choice(PREFIXES)}{random.choice(QUESTIONS)} (ticket {random.randint(1, 99999)})"
    )


class Employee(HttpUser):
    wait_time = between(0.5, 1.5)

    def on_start(self) -> None:
        number = next(_user_numbers)
        self.client.headers["Host"] = HOST_HEADER
        response = self.client.post(
            "/api/auth/token",
            json={"username": f"load{number:02d}", "password": "load-test-pw"},
            name="auth/token",
        )
        response.raise_for_status()
        self.client.headers["Authorization"] = f"Token {response.json()['token']}"

    @task(4)
    def search(self) -> None:
        self.client.post(
            "/api/kb/search",
            json={"query": question(), "top": 8},
            name="kb/search",
        )

    @task(1)
    def chat(self) -> None:
        self.client.post(
            "/api/kb/chat",
            json={"question": question()},
            name="kb/chat",
        )
