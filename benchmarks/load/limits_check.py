"""Do the limits hold across processes? Fires bursts at a multi-process gunicorn and counts.

Run through benchmarks/load/shared_limits.sh, which starts gunicorn with 2 workers, an
access log naming the worker pid of every request, and known rates. Checks:
  1. token throttle (API_TOKEN_RATE, per client address): exactly that many non-429 answers
     in one window, whatever the worker, even when X-Forwarded-For rotates;
  2. login failure limiter: LOGIN_FAILURE_LIMIT wrong passwords for one username across both
     workers, then the right password is refused (429);
  3. search throttle per user (API_SEARCH_RATE);
and that both worker processes served each burst (from the access log).
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

BASE = os.environ.get("LIMITS_BASE", "http://127.0.0.1:8766")
HOST = os.environ.get("LIMITS_HOST", "demo.localhost")
TOKEN_RATE = int(os.environ["API_TOKEN_RATE"].split("/")[0])  # per minute
SEARCH_RATE = int(os.environ["API_SEARCH_RATE"].split("/")[0])
LOGIN_LIMIT = int(os.environ["LOGIN_FAILURE_LIMIT"])
ACCESS_LOG = os.environ["LIMITS_ACCESS_LOG"]


def post(path: str, body: dict, headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(
        BASE + path,
        data=json.dumps(body).encode(),
        headers={"Host": HOST, "Content-Type": "application/json", **(headers or {})},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def burst(count: int, call) -> list[int]:
    with ThreadPoolExecutor(max_workers=16) as pool:
        return list(pool.map(call, range(count)))


def wait_for_fresh_window(period: int = 60, margin: int = 20) -> None:
    """Start a burst early in a counter window (fixed windows of `period` seconds), so the
    burst does not straddle two windows and legitimately get twice the limit."""
    while time.time() % period > period - margin:
        time.sleep(1)


def worker_pids(marker: str) -> set[str]:
    with open(ACCESS_LOG) as log:
        return {line.split()[0] for line in log if marker in line}


def main() -> int:
    failures: list[str] = []
    report: dict[str, object] = {}

    wait_for_fresh_window()
    codes = burst(
        TOKEN_RATE * 3,
        lambda n: post(
            "/api/auth/token?burst=token",
            {"username": f"nobody{n}", "password": "x"},
            {"X-Forwarded-For": f"203.0.113.{n % 250}"},
        ),
    )
    allowed = sum(code != 429 for code in codes)
    report["token"] = {"sent": len(codes), "allowed": allowed, "limit": TOKEN_RATE}
    if allowed != TOKEN_RATE or 500 in codes:
        failures.append(f"token throttle: {allowed} allowed, limit {TOKEN_RATE}")
    pids = worker_pids("burst=token")
    report["token"]["worker_pids"] = len(pids)  # type: ignore[index]
    if len(pids) < 2:
        failures.append("token burst was served by fewer than 2 worker processes")

    time.sleep(61)  # a fresh token window, or the throttle masks the login limiter
    wait_for_fresh_window()
    wrong = burst(
        LOGIN_LIMIT,
        lambda n: post("/api/auth/token?burst=login", {"username": "load01", "password": "no"}),
    )
    right = post("/api/auth/token?burst=login", {"username": "load01", "password": "load-test-pw"})
    report["login"] = {"wrong": wrong, "then_right_password": right}
    if right != 429:
        failures.append(f"login limiter: right password after {LOGIN_LIMIT} failures got {right}")
    report["login"]["worker_pids"] = len(worker_pids("burst=login"))  # type: ignore[index]

    token = os.environ["LIMITS_TOKEN"]
    wait_for_fresh_window(3600, 900)  # API_SEARCH_RATE is per hour: each search embeds (slow)
    search = burst(
        SEARCH_RATE * 2,
        lambda n: post(
            "/api/kb/search?burst=search",
            {"query": f"redis failover {n}", "top": 3},
            {"Authorization": f"Token {token}"},
        ),
    )
    allowed = sum(code == 200 for code in search)
    report["search"] = {
        "sent": len(search),
        "allowed": allowed,
        "limit": SEARCH_RATE,
        "errors": sum(code >= 500 for code in search),
        "worker_pids": len(worker_pids("burst=search")),
    }
    if allowed != SEARCH_RATE or any(code >= 500 for code in search):
        failures.append(f"search throttle: {allowed} allowed, limit {SEARCH_RATE}")
    if report["search"]["worker_pids"] < 2:  # type: ignore[index]
        failures.append("search burst was served by fewer than 2 worker processes")

    print(json.dumps(report, indent=2))
    for failure in failures:
        print("FAIL:", failure)
    print("limits hold across processes" if not failures else "LIMITS DO NOT HOLD")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
