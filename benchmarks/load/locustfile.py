"""Load profiles against the demo tenant. Run through benchmarks/load/run.sh, which starts
gunicorn (and a kb_worker) on loopback, creates the users and sets the LOAD_* variables below.

classic (run.sh USERS SECONDS, the first load test, kept as it was): employees sign in for a
  token, then search (4 of 5 tasks) or chat (1 of 5) through the API; sign-ins fall inside the
  measured time (locust -t).
mixed (run.sh mixed): employees who edit the handbook search (4), chat (2), open a cited chunk
  as the chat page's citation modal does (2) and load the Documents page (1); one more editor
  uploads LOAD_UPLOADS Markdown files through the upload API, evenly spread over the window.
  Everyone signs in first (a token, and a session through the sign-in form); the measured
  window (LOAD_WINDOW_SECONDS) opens when all have, so the PBKDF2 sign-ins (~1 s of CPU each)
  are reported apart and do not count in the window's numbers.
steps (run.sh steps): the mixed employees without uploads. As many as the largest step sign in,
  then the number of active employees rises through LOAD_STEPS, LOAD_STEP_SECONDS each; the
  others wait, signed in. Each step's throughput, p95 and errors are reported, and the highest
  sustainable rate (0 errors and search p95 under SEARCH_P95_LIMIT_MS).
"""

from __future__ import annotations

import collections
import functools
import itertools
import json
import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from locust import HttpUser, between, constant, events, task
from locust.env import Environment
from locust.exception import StopUser

# locust has monkey-patched the standard library with gevent before it loads this file:
# time.sleep, threading.Event and threading.Timer here are cooperative greenlets.

ROOT = Path(__file__).resolve().parents[2]
HOST_HEADER = os.environ.get("LOAD_TENANT_HOST", "demo.localhost")
PASSWORD = "load-test-pw"  # benchmarks/load/prepare.py
PROJECT = "handbook"
PROFILE = os.environ.get("LOAD_PROFILE", "classic")
WINDOW_SECONDS = float(os.environ.get("LOAD_WINDOW_SECONDS", "0"))
STEPS = (
    [int(n) for n in os.environ.get("LOAD_STEPS", "").replace(",", " ").split()]
    if PROFILE == "steps"
    else []
)
STEP_SECONDS = float(os.environ.get("LOAD_STEP_SECONDS", "60"))
UPLOADS = int(os.environ.get("LOAD_UPLOADS", "0"))
UPLOADER = os.environ.get("LOAD_UPLOADER", "loadup")
RUN_ID = os.environ.get("LOAD_RUN_ID", time.strftime("%Y%m%d-%H%M%S"))
OUT = Path(os.environ.get("LOAD_OUT", str(ROOT / "benchmarks" / "out")))
# The criterion of a sustainable step (the issue's: zero errors, searches answered in time).
SEARCH_P95_LIMIT_MS = 1000
UPLOAD_PREFIX = "loadup-"  # prepare.py removes earlier runs' uploads by it

QUESTIONS = [
    json.loads(line)["q"]
    for line in (ROOT / "kb" / "demo_corpus" / "QUESTIONS.jsonl").read_text().splitlines()
    if line.strip()
]
_user_numbers = itertools.count(1)
PREFIXES = ("", "Quick question: ", "Can you tell me: ", "I need to know ", "Remind me, ")
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
logger = logging.getLogger("load")


def question() -> str:
    """A gold question, varied so that almost no query text repeats (no query-cache hits)."""
    return (
        f"{random.choice(PREFIXES)}{random.choice(QUESTIONS)} (ticket {random.randint(1, 99999)})"
    )


REPORT = OUT / f"load-{PROFILE}-report.txt"  # what run.sh shows of the mixed and step runs


def say(line: str) -> None:
    """Print a line of the run's report and keep it in REPORT (locust's log is noisy)."""
    print(line, flush=True)
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    with REPORT.open("a") as handle:
        handle.write(line + "\n")


class Window:
    """The measured window of the mixed and step profiles (unused by classic)."""

    def __init__(self) -> None:
        self.arrived = 0
        self.failed_sign_ins = 0
        self.opened = threading.Event()
        self.started_at = 0.0
        self.sign_in_report: dict[str, dict[str, float]] = {}
        self.closer: threading.Timer | None = None

    @property
    def seconds(self) -> float:
        return len(STEPS) * STEP_SECONDS if STEPS else WINDOW_SECONDS

    def arrive(self, environment: Environment, *, signed_in: bool) -> None:
        """One simulated person is done signing in (or failed to); the last one opens it."""
        self.arrived += 1
        self.failed_sign_ins += 0 if signed_in else 1
        runner = environment.runner
        if runner is not None and self.arrived >= runner.target_user_count:
            self.open(environment)

    def open(self, environment: Environment) -> None:
        if self.opened.is_set() or environment.runner is None:
            return
        stats = environment.runner.stats
        self.sign_in_report = {
            entry.name: {
                "requests": entry.num_requests,
                "failures": entry.num_failures,
                "p50_ms": entry.get_response_time_percentile(0.5),
                "max_ms": entry.max_response_time,
            }
            for entry in stats.entries.values()
            if entry.name.startswith("auth/")
        }
        for name, row in sorted(self.sign_in_report.items()):
            say(
                f"sign-in before the window: {name} {row['requests']} requests, "
                f"{row['failures']} failed, p50 {row['p50_ms']:.0f} ms, max {row['max_ms']:.0f} ms"
            )
        stats.reset_all()
        self.started_at = time.time()
        _write_json(
            OUT / f"load-{PROFILE}-window.json",
            {
                "started_at": self.started_at,
                "seconds": self.seconds,
                "steps": STEPS,
                "step_seconds": STEP_SECONDS,
            },
        )
        say(f"window open: {self.seconds:.0f} s, {self.arrived} signed in")
        # a daemon: a run stopped early (Ctrl-C, SIGTERM) must not wait for it to exit
        self.closer = threading.Timer(self.seconds, environment.runner.quit)
        self.closer.daemon = True
        self.closer.start()
        self.opened.set()

    def step_index(self, now: float) -> int:
        return int((now - self.started_at) // STEP_SECONDS)

    def active(self, number: int) -> bool:
        """Whether employee `number` works now (steps: the first STEPS[i] of them)."""
        if not STEPS:
            return True
        index = min(self.step_index(time.time()), len(STEPS) - 1)
        return number <= STEPS[index]


WINDOW = Window()


def sign_in_token(user: HttpUser, username: str) -> None:
    """An API token for `username`, sent with every later request of `user`."""
    response = user.client.post(
        "/api/auth/token",
        json={"username": username, "password": PASSWORD},
        name="auth/token",
    )
    response.raise_for_status()
    user.client.headers["Authorization"] = f"Token {response.json()['token']}"


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def working(func: Callable[[Employee], None]) -> Callable[[Employee], None]:
    """A task an employee does only while active (steps); a waiting one idles a second."""

    @functools.wraps(func)
    def wrapper(user: Employee) -> None:
        if not WINDOW.active(user.number):
            time.sleep(1)
            return
        func(user)

    return wrapper


# Recent citations (document, chunk, version) seen by anyone: the preview task's fallback
# before an employee's own first chat answer.
SEEN_CITATIONS: collections.deque[tuple[int, int, int | None]] = collections.deque(maxlen=200)
CLASSIC = PROFILE == "classic"


class Employee(HttpUser):
    """Task weights: classic search 4, chat 1; mixed and steps search 4, chat 2, preview 2,
    Documents page 1 (a weight of 0 leaves the task out)."""

    wait_time = between(0.5, 1.5)

    @task(4)
    @working
    def search(self) -> None:
        response = self.client.post(
            "/api/kb/search", json={"query": question(), "top": 8}, name="kb/search"
        )
        if response.status_code == 200 and not CLASSIC:
            for hit in response.json().get("primary", [])[:2]:
                SEEN_CITATIONS.append((hit["document_id"], hit["chunk_id"], None))

    @task(1 if CLASSIC else 2)
    @working
    def chat(self) -> None:
        response = self.client.post("/api/kb/chat", json={"question": question()}, name="kb/chat")
        if response.status_code == 200 and not CLASSIC:
            for citation in response.json().get("citations", []):
                cited = (citation["document_id"], citation["chunk_id"], citation.get("version"))
                self.citations.append(cited)
                SEEN_CITATIONS.append(cited)

    @task(0 if CLASSIC else 2)
    @working
    def preview(self) -> None:
        """The citation modal of the chat page: htmx GET of /chat/preview/<document>/ with
        the cited chunk and version (static/js/chat.js loadPreview), on the session."""
        pool = self.citations or SEEN_CITATIONS
        if not pool:
            self.search()  # nothing cited yet anywhere: find something to open
            return
        document_id, chunk_id, version = random.choice(pool)
        query = f"?chunk={chunk_id}" + (f"&version={version}" if version else "")
        self.page(
            f"/chat/preview/{document_id}/{query}",
            headers={**self.page_headers, "HX-Request": "true", "HX-Target": "preview-body"},
            name="chat/preview",
        )

    @task(0 if CLASSIC else 1)
    @working
    def documents_page(self) -> None:
        """The editors' Documents page of the handbook (its documents, jobs, duplicates)."""
        self.page(f"/documents/{PROJECT}/", headers=self.page_headers, name="documents page")

    def page(self, path: str, *, headers: dict[str, str | None], name: str) -> None:
        """GET a page on the session; anything but a 200 is an error (a redirect to the
        sign-in page would otherwise pass as a success)."""
        with self.client.get(
            path, headers=headers, name=name, allow_redirects=False, catch_response=True
        ) as response:
            if response.status_code != 200:
                response.failure(f"{name} answered {response.status_code}")

    def on_start(self) -> None:
        self.number = next(_user_numbers)
        self.client.headers["Host"] = HOST_HEADER
        self.citations: collections.deque[tuple[int, int, int | None]] = collections.deque(
            maxlen=20
        )
        self.page_headers: dict[str, str | None] = {}
        if CLASSIC:
            sign_in_token(self, f"load{self.number:02d}")
            return
        signed_in = False
        try:
            sign_in_token(self, f"load{self.number:02d}")
            self.sign_in_form(f"load{self.number:02d}")
            signed_in = True
        except Exception:
            logger.exception("load%02d could not sign in", self.number)
        finally:
            WINDOW.arrive(self.environment, signed_in=signed_in)
        if not signed_in:
            raise StopUser
        WINDOW.opened.wait()

    def sign_in_form(self, username: str) -> None:
        """A browser's sign-in: the form's CSRF token, then the session cookie.

        With DEBUG off the cookies are Secure, which requests never sends over plain http
        (gunicorn on loopback), so they go in an explicit Cookie header on page requests only:
        the API calls stay token-only, as in the classic profile.
        """
        no_token = {"Authorization": None}
        page = self.client.get("/login/", headers=no_token, name="auth/login form")
        page.raise_for_status()
        match = CSRF_FIELD.search(page.text)
        csrf_cookie = page.cookies.get("csrftoken")
        if match is None or csrf_cookie is None:
            raise RuntimeError("the sign-in page has no CSRF token")
        response = self.client.post(
            "/login/",
            data={
                "username": username,
                "password": PASSWORD,
                "csrfmiddlewaretoken": match.group(1),
            },
            headers={**no_token, "Cookie": f"csrftoken={csrf_cookie}"},
            allow_redirects=False,
            name="auth/login",
        )
        session = response.cookies.get("sessionid")
        if response.status_code != 302 or session is None:
            raise RuntimeError(f"sign-in form answered {response.status_code} without a session")
        csrf_cookie = response.cookies.get("csrftoken") or csrf_cookie  # rotated at sign-in
        self.client.cookies.clear()
        self.page_headers = {**no_token, "Cookie": f"sessionid={session}; csrftoken={csrf_cookie}"}


def upload_sources() -> list[tuple[str, str]]:
    """(title, text) of the answer benchmarks' documents, without frontmatter: real prose of
    four other companies, so the uploads do not shadow the handbook's answers."""
    sources = []
    for path in sorted((ROOT / "benchmarks" / "answers").glob("*/docs/*.md")):
        text = path.read_text(encoding="utf-8")
        if text.startswith("---\n"):  # frontmatter: its slug, supersedes... are another corpus'
            end = text.find("\n---\n", 4)
            text = text[end + 5 :] if end >= 0 else text
        title = next(
            (line[2:].strip() for line in text.splitlines() if line.startswith("# ")), path.stem
        )
        sources.append((title, text.strip()))
    return sources


def _halves(text: str) -> tuple[str, str]:
    lines = text.splitlines()
    middle, total = 0, 0
    for middle, line in enumerate(lines):  # noqa: B007 - the index where half the text is
        total += len(line) + 1
        if total >= len(text) / 2:
            break
    return "\n".join(lines[: middle + 1]), "\n".join(lines[middle + 1 :])


@functools.cache
def _sources() -> list[tuple[str, str]]:
    return upload_sources()


def upload_file(number: int) -> tuple[str, bytes]:
    """Upload `number` (1-based): unique name, title and text.

    The first len(sources) uploads are the documents whole; later ones join the first half of
    one document to the second half of another, so no two uploads share more than about half
    their word 3-shingles (the near-duplicate threshold, KB_DUPLICATE_THRESHOLD, is 0.8).
    Near-duplicates would still be ingested (grouped, never merged), but each upload is meant
    to cost what a new document costs.
    """
    sources = _sources()
    index, cycle = (number - 1) % len(sources), (number - 1) // len(sources)
    title, text = sources[index]
    if cycle:
        other = sources[(index + cycle * (len(sources) // 3) + 1) % len(sources)][1]
        text = f"{_halves(text)[0]}\n\n{_halves(other)[1]}"
    body = (
        f"# Upload {number} of load run {RUN_ID}: {title}\n\n"
        f"Load-test upload number {number} (run {RUN_ID}).\n\n{text}\n"
    )
    return f"{UPLOAD_PREFIX}{RUN_ID}-{number:03d}.md", body.encode("utf-8")


class Uploader(HttpUser):
    """One editor uploading LOAD_UPLOADS files, one per request, evenly over the window; each
    sent file is logged (name, status, job id) for benchmarks/load/uploads_check.py."""

    fixed_count = 1
    abstract = UPLOADS <= 0  # locust runs no abstract user class: no uploader without uploads
    wait_time = constant(0)  # the task paces itself

    def on_start(self) -> None:
        self.client.headers["Host"] = HOST_HEADER
        self.sent = 0
        self.log = OUT / "load-uploads.jsonl"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.log.write_text("")
        signed_in = False
        try:
            sign_in_token(self, UPLOADER)
            signed_in = True
        finally:
            WINDOW.arrive(self.environment, signed_in=signed_in)
        WINDOW.opened.wait()

    @task
    def upload(self) -> None:
        if self.sent >= UPLOADS:
            time.sleep(1)
            return
        due = WINDOW.started_at + self.sent * WINDOW.seconds / UPLOADS
        time.sleep(max(0.0, due - time.time()))
        name, data = upload_file(self.sent + 1)
        self.sent += 1
        job_id = None
        with self.client.post(
            "/api/kb/documents",
            data={"project_key": PROJECT},
            files={"files": (name, data, "text/markdown")},
            name="kb/documents upload",
            catch_response=True,
        ) as response:
            if response.status_code == 202:
                job_id = response.json()["jobs"][0]["id"]
            else:
                response.failure(f"upload answered {response.status_code}: {response.text[:200]}")
        with self.log.open("a") as handle:
            row = {"number": self.sent, "name": name, "status": response.status_code}
            handle.write(json.dumps({**row, "job_id": job_id, "sent_at": time.time()}) + "\n")


# --- step statistics -------------------------------------------------------------------------

# per step: endpoint name -> response times (ms), and failures per endpoint
STEP_TIMES: dict[int, dict[str, list[float]]] = collections.defaultdict(
    lambda: collections.defaultdict(list)
)
STEP_FAILURES: dict[int, collections.Counter[str]] = collections.defaultdict(collections.Counter)


@events.request.add_listener
def _count_step(name: str, response_time: float, exception: BaseException | None, **_: Any) -> None:
    if not STEPS or not WINDOW.opened.is_set():
        return
    index = WINDOW.step_index(time.time())
    if index >= len(STEPS):  # finished in the stop grace after the last step
        return
    STEP_TIMES[index][name].append(response_time)
    if exception is not None:
        STEP_FAILURES[index][name] += 1


def _percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def step_rows() -> list[dict[str, Any]]:
    rows = []
    for index, users in enumerate(STEPS):
        times = STEP_TIMES.get(index, {})
        every = [t for values in times.values() for t in values]
        errors = sum(STEP_FAILURES.get(index, collections.Counter()).values())
        search_p95 = _percentile(times.get("kb/search", []), 0.95)
        rows.append(
            {
                "users": users,
                "requests": len(every),
                "errors": errors,
                "req_per_s": len(every) / STEP_SECONDS,
                "p50_ms": _percentile(every, 0.5),
                "p95_ms": _percentile(every, 0.95),
                "search_p95_ms": search_p95,
                "chat_p95_ms": _percentile(times.get("kb/chat", []), 0.95),
                "preview_p95_ms": _percentile(times.get("chat/preview", []), 0.95),
                "documents_p95_ms": _percentile(times.get("documents page", []), 0.95),
                "sustainable": errors == 0 and search_p95 < SEARCH_P95_LIMIT_MS,
            }
        )
    return rows


def window_rows(environment: Environment) -> list[dict[str, Any]]:
    """Per endpoint over the window (the stats were reset when it opened)."""
    elapsed = max(1e-9, min(time.time() - WINDOW.started_at, WINDOW.seconds))
    stats = environment.runner.stats if environment.runner else environment.stats
    entries = sorted(stats.entries.values(), key=lambda entry: -entry.num_requests)
    rows = []
    for entry in [*(entry for entry in entries if entry.num_requests), stats.total]:
        rows.append(
            {
                "endpoint": "all" if entry is stats.total else f"{entry.method} {entry.name}",
                "requests": entry.num_requests,
                "errors": entry.num_failures,
                "req_per_s": entry.num_requests / elapsed,
                "p50_ms": entry.get_response_time_percentile(0.5),
                "p95_ms": entry.get_response_time_percentile(0.95),
                "p99_ms": entry.get_response_time_percentile(0.99),
                "max_ms": entry.max_response_time or 0,
            }
        )
    return rows


@events.test_stop.add_listener
def _report(environment: Environment, **_: Any) -> None:
    if CLASSIC:
        return
    if WINDOW.closer is not None:
        WINDOW.closer.cancel()
    if not WINDOW.opened.is_set():
        say(f"the window never opened: {WINDOW.arrived} of the users signed in")
        return
    elapsed = time.time() - WINDOW.started_at
    complete = elapsed >= WINDOW.seconds - 1
    summary: dict[str, Any] = {
        "profile": PROFILE,
        "window_seconds": WINDOW.seconds,
        "window_complete": complete,
        "failed_sign_ins": WINDOW.failed_sign_ins,
        "sign_in": WINDOW.sign_in_report,
    }
    if STEPS:
        rows = step_rows()
        say(f"\nsteps of {STEP_SECONDS:.0f} s (p95 in ms)")
        say(
            "| users | requests | errors | req/s | p50 | p95 | search p95 | chat p95 "
            "| preview p95 | documents p95 |"
        )
        say("|---|---|---|---|---|---|---|---|---|---|")
        for row in rows:
            say(
                f"| {row['users']} | {row['requests']} | {row['errors']} | "
                f"{row['req_per_s']:.1f} | {row['p50_ms']:.0f} | {row['p95_ms']:.0f} | "
                f"{row['search_p95_ms']:.0f} | {row['chat_p95_ms']:.0f} | "
                f"{row['preview_p95_ms']:.0f} | {row['documents_p95_ms']:.0f} |"
            )
        sustainable = [row for row in rows if row["sustainable"]]
        best = max(sustainable, key=lambda row: row["req_per_s"], default=None)
        criterion = f"0 errors and search p95 < {SEARCH_P95_LIMIT_MS} ms"
        if best is None:
            say(f"max sustainable rate: none of the steps met {criterion}")
        else:
            say(
                f"max sustainable rate: {best['req_per_s']:.1f} req/s "
                f"at {best['users']} users ({criterion})"
            )
        summary |= {"steps": rows, "criterion": criterion, "max_sustainable": best}
    else:
        rows = window_rows(environment)
        say(f"\nwindow: {min(elapsed, WINDOW.seconds):.0f} of {WINDOW.seconds:.0f} s")
        say("| endpoint | requests | errors | req/s | p50 ms | p95 ms | p99 ms | max ms |")
        say("|---|---|---|---|---|---|---|---|")
        for row in rows:
            say(
                f"| `{row['endpoint']}` | {row['requests']} | {row['errors']} | "
                f"{row['req_per_s']:.1f} | {row['p50_ms']:.0f} | {row['p95_ms']:.0f} | "
                f"{row['p99_ms']:.0f} | {row['max_ms']:.0f} |"
            )
        summary["endpoints"] = rows
    if not complete:
        say(f"the window was cut short: {elapsed:.0f} of {WINDOW.seconds:.0f} s")
    if WINDOW.failed_sign_ins:
        say(f"{WINDOW.failed_sign_ins} simulated people could not sign in")
    _write_json(OUT / f"load-{PROFILE}-summary.json", summary)
