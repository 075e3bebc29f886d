"""Database connections of a running server under MCP calls, pages and API calls.

Sends MCP tool calls (search, ask, get_document, list_projects) and page and API requests
(start page, chat page, search page, login page, search API, document list, preview, me)
from several users' tokens and sessions at an even pace, and samples PostgreSQL's client
connections (pg_stat_activity) before, during and after. Before #26, under `./dev run`
(runserver) the count rose with every burst until PostgreSQL refused every tenant.

    ./dev run &                                   # or gunicorn, see benchmarks/RESULTS.md
    .venv/bin/python benchmarks/load/mcp_connections.py --base http://127.0.0.1:8000

The users (`mcpload1`.. readers of the demo handbook) are created with `./dev manage
user_create`, so run it from the checkout, against the demo tenant. Without --database-url
the connections are counted on the embedded server of .data/pg.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import psycopg

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "mcp-load-pw-1"
CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
MCP_ACCEPT = "application/json, text/event-stream"


def count_connections(database_url: str) -> int:
    """Client connections of the server's databases, this probe excluded."""
    with psycopg.connect(database_url, autocommit=True) as probe:
        row = probe.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
        ).fetchone()
    return int(row[0]) if row else 0


def count_or_refused(database_url: str) -> int | str:
    """The count, or "refused" when the server has no connection left for the probe."""
    try:
        return count_connections(database_url)
    except psycopg.OperationalError:
        return "refused"


def max_connections(database_url: str) -> int:
    with psycopg.connect(database_url, autocommit=True) as probe:
        row = probe.execute("SHOW max_connections").fetchone()
    return int(row[0]) if row else 0


class Sampler(threading.Thread):
    def __init__(self, database_url: str, interval: float) -> None:
        super().__init__(daemon=True)
        self.database_url = database_url
        self.interval = interval
        self.stopping = threading.Event()
        self.samples: list[tuple[float, int]] = []
        self.refused = 0  # probes the server refused ("too many clients already")

    def run(self) -> None:
        started = time.monotonic()
        while not self.stopping.is_set():
            try:
                count = count_connections(self.database_url)
            except psycopg.OperationalError:
                self.refused += 1
            else:
                self.samples.append((time.monotonic() - started, count))
            self.stopping.wait(self.interval)


@dataclass
class User:
    name: str
    token: str
    session: httpx2.Client


@dataclass
class Tally:
    statuses: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, status: int | str, seconds: float) -> None:
        with self.lock:
            self.statuses[f"{kind} {status}"] += 1
            self.latencies.append(seconds)


def create_users(count: int, tenant: str, project: str) -> list[str]:
    names = [f"mcpload{n}" for n in range(1, count + 1)]
    for name in names:
        subprocess.run(
            [str(ROOT / "dev"), "manage", "user_create", "--tenant", tenant, name]
            + ["--password", PASSWORD, "--project", f"{project}:reader"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
    return names


def sign_in(base: str, host: str, name: str) -> User:
    api = httpx2.post(
        f"{base}/api/auth/token",
        headers={"Host": host},
        json={"username": name, "password": PASSWORD},
        timeout=60,
    )
    api.raise_for_status()
    session = httpx2.Client(base_url=base, headers={"Host": host}, timeout=120)
    form = session.get("/login/")
    match = CSRF_RE.search(form.text)
    if match is None:
        raise RuntimeError("no CSRF token on the login page")
    signed = session.post(
        "/login/",
        data={"username": name, "password": PASSWORD, "csrfmiddlewaretoken": match.group(1)},
        headers={"Referer": f"{base}/login/"},
    )
    if signed.status_code not in (200, 302) or "sessionid" not in session.cookies:
        raise RuntimeError(f"{name} could not sign in: {signed.status_code}")
    return User(name=name, token=api.json()["token"], session=session)


def mcp_call(base: str, host: str, user: User, index: int, document_id: int) -> int:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search", {"query": "How do we fail over the cache cluster?", "top": 5}),
        ("ask", {"question": "How do I fail over the Redis cluster?"}),
        ("get_document", {"document_id": document_id}),
        ("list_projects", {}),
        ("search", {"query": "on-call rotation and paging"}),
    ]
    name, arguments = calls[index % len(calls)]
    message = {"jsonrpc": "2.0", "id": index, "method": "tools/call"}
    message["params"] = {"name": name, "arguments": arguments}
    response = httpx2.post(
        f"{base}/mcp/",
        headers={"Host": host, "Authorization": f"Token {user.token}", "Accept": MCP_ACCEPT},
        json=message,
        timeout=120,
    )
    return response.status_code


def page_or_api(base: str, host: str, user: User, index: int, document_id: int) -> int:
    headers = {"Host": host, "Authorization": f"Token {user.token}"}
    kind = index % 8
    if kind == 0:
        return user.session.get("/").status_code
    if kind == 1:
        return user.session.get("/chat/").status_code
    if kind == 2:
        return user.session.get("/search/", params={"q": "failover runbook"}).status_code
    if kind == 3:
        return httpx2.get(f"{base}/login/", headers={"Host": host}, timeout=60).status_code
    if kind == 4:
        body = {"query": "incident severity levels", "top": 5}
        return httpx2.post(
            f"{base}/api/kb/search", headers=headers, json=body, timeout=120
        ).status_code
    if kind == 5:
        return httpx2.get(f"{base}/api/kb/documents", headers=headers, timeout=60).status_code
    if kind == 6:
        url = f"{base}/api/kb/documents/{document_id}/preview"
        return httpx2.get(url, headers=headers, timeout=60).status_code
    return httpx2.get(f"{base}/api/auth/me", headers=headers, timeout=60).status_code


def a_document_id(base: str, host: str, user: User) -> int:
    response = httpx2.get(
        f"{base}/api/kb/documents",
        headers={"Host": host, "Authorization": f"Token {user.token}"},
        timeout=60,
    )
    response.raise_for_status()
    return int(response.json()["results"][0]["id"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="http://127.0.0.1:8000")
    parser.add_argument("--host", help="Host header (default: demo.localhost:<port of --base>)")
    parser.add_argument("--tenant", default="demo")
    parser.add_argument("--project", default="handbook")
    parser.add_argument("--database-url", help="default: the embedded server in .data/pg")
    parser.add_argument("--users", type=int, default=5)
    parser.add_argument("--mcp", type=int, default=500, help="MCP tool calls in all")
    parser.add_argument("--requests", type=int, default=2000, help="page and API requests")
    parser.add_argument("--seconds", type=float, default=120.0, help="spread over this long")
    parser.add_argument("--clients", type=int, default=10, help="requests in flight at most")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args()

    port = args.base.rsplit(":", 1)[-1].strip("/")
    host = args.host or f"demo.localhost:{port}"
    database_url = (
        args.database_url or f"postgresql://postgres:@/postgres?host={ROOT / '.data' / 'pg'}"
    )

    names = create_users(args.users, args.tenant, args.project)
    users = [sign_in(args.base, host, name) for name in names]
    document_id = a_document_id(args.base, host, users[0])

    time.sleep(2)  # let the sign-in requests' connections settle
    before = count_connections(database_url)
    sampler = Sampler(database_url, interval=0.5)
    sampler.start()
    tally = Tally()
    total = args.mcp + args.requests
    # MCP calls spread evenly among the page and API requests
    plan = ["mcp" if (i * args.mcp) // total != ((i + 1) * args.mcp) // total else "page"
            for i in range(total)]  # fmt: skip
    started = time.monotonic()

    def one(index: int) -> None:
        due = started + index * args.seconds / total
        time.sleep(max(0.0, due - time.monotonic()))
        user = users[index % len(users)]
        call = mcp_call if plan[index] == "mcp" else page_or_api
        begun = time.monotonic()
        try:
            status: int | str = call(args.base, host, user, index, document_id)
        except httpx2.HTTPError as exc:
            status = type(exc).__name__
        tally.add(plan[index], status, time.monotonic() - begun)

    with ThreadPoolExecutor(args.clients) as pool:
        list(pool.map(one, range(total)))
    elapsed = time.monotonic() - started
    sampler.stopping.set()
    sampler.join()
    right_after = count_or_refused(database_url)
    time.sleep(10)
    settled = count_or_refused(database_url)
    for user in users:
        user.session.close()

    during = [count for _, count in sampler.samples]
    summary = {
        "base": args.base,
        "max_connections": max_connections(database_url),
        "requests": {"mcp": args.mcp, "pages_and_api": args.requests, "users": args.users},
        "seconds": round(elapsed, 1),
        "statuses": dict(sorted(tally.statuses.items())),
        "latency_p50_ms": round(1000 * statistics.median(tally.latencies)),
        "latency_p95_ms": round(1000 * statistics.quantiles(tally.latencies, n=20)[-1]),
        "connections": {
            "before": before,
            "during_max": max(during),
            "during_median": statistics.median(during),
            "during_by_quarter": [
                max(during[i * len(during) // 4 : (i + 1) * len(during) // 4] or [0])
                for i in range(4)
            ],
            "right_after": right_after,
            "after_10s": settled,
            "probes_refused": sampler.refused,
        },
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    connections = summary["connections"]
    print(f"{args.mcp} MCP calls + {args.requests} page/API requests from {args.users} users "
          f"in {summary['seconds']} s against {args.base}")  # fmt: skip
    print("statuses:", ", ".join(f"{key}: {n}" for key, n in summary["statuses"].items()))
    print(f"latency p50 {summary['latency_p50_ms']} ms, p95 {summary['latency_p95_ms']} ms")
    print(
        f"connections (max_connections {summary['max_connections']}): before "
        f"{connections['before']}, during max {connections['during_max']} (median "
        f"{connections['during_median']}; max per quarter {connections['during_by_quarter']}),"
        f" right after {connections['right_after']}, 10 s later {connections['after_10s']};"
        f" probes refused by the server: {connections['probes_refused']}"
    )


if __name__ == "__main__":
    main()
