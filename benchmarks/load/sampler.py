"""What a load run saturates: CPU, database connections, lock waits, sampled every 2 s.

    .venv/bin/python benchmarks/load/sampler.py --out OUT/samples.csv --port 8765 \\
        --group gunicorn=PID --group kb_worker=PID --group locust=PID [--window WINDOW.json]

Started by benchmarks/load/run.sh beside the run; stops on SIGTERM or SIGINT and then prints a
summary (averages and peaks) over the measured window that locustfile.py writes to --window
(the whole sampling time without it), per step for a step run. Each sample:
  - CPU of the machine and of each group (a process and all its descendants; PostgreSQL: the
    postmaster of this run's data directory and its backends), as % of one core: 200 % is
    both cores of a 2-core machine;
  - PostgreSQL client connections by state (pg_stat_activity), those waiting on a heavyweight
    lock, and max_connections;
  - lock waits: pg_locks rows not granted, and what they wait for;
  - TCP connections established to gunicorn's port and its listen queue (/proc/net/tcp).
Every sample is also written to --out (CSV).
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import math
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

# Saturation rules of the summary's verdict.
CPU_BUSY_PERCENT = 90  # the machine counts as busy at 90 % of all its cores...
CPU_BUSY_SHARE = 0.5  # ...and CPU as saturated when it is busy in half the samples
CONNECTIONS_SHARE = 0.9  # connections: the peak in use reaches 90 % of max_connections
LOCK_WAIT_SHARE = 0.1  # locks: some session waits for a lock in 10 % of the samples

CONNECTIONS_SQL = """
    SELECT coalesce(state, ''), coalesce(wait_event_type, ''), count(*)
    FROM pg_stat_activity
    WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
    GROUP BY 1, 2
"""
LOCK_WAITS_SQL = """
    SELECT locktype, mode, coalesce(relation::regclass::text, ''), count(*)
    FROM pg_locks WHERE NOT granted GROUP BY 1, 2, 3
"""


class Group:
    """CPU time of a process tree, as the difference between two samples."""

    def __init__(self, name: str, root_pid: int) -> None:
        self.name = name
        self.root_pid = root_pid
        self.last: dict[tuple[int, float], float] = {}

    def processes(self) -> list[psutil.Process]:
        try:
            root = psutil.Process(self.root_pid)
            return [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    def cpu_seconds_since_last(self) -> float:
        """CPU seconds the tree used since the previous call (a new process: since it started,
        which is inside the interval for the backends and workers a run starts)."""
        now: dict[tuple[int, float], float] = {}
        for process in self.processes():
            try:
                times = process.cpu_times()
                now[(process.pid, process.create_time())] = times.user + times.system
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        used = sum(total - self.last.get(key, 0.0) for key, total in now.items())
        self.last = now
        return max(0.0, used)


def postmaster_pid(cursor: Any) -> int | None:
    """The postmaster of the server we are connected to, from its data directory's pid file
    (another PostgreSQL on the machine is not ours to count)."""
    try:
        cursor.execute("SHOW data_directory")
        data_dir = Path(cursor.fetchone()[0])
        return int((data_dir / "postmaster.pid").read_text().splitlines()[0])
    except Exception:  # no permission to read the setting or the file: no PostgreSQL group
        return None


def tcp_counts(port: int) -> tuple[int, int]:
    """(connections established to gunicorn's port, connections waiting in its listen queue:
    the rx_queue of its LISTEN socket), read from /proc/net/tcp as `ss` does."""
    established, queued = 0, 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, queues = fields[1], fields[3], fields[4]
            if int(local.rsplit(":", 1)[1], 16) != port:
                continue
            if state == "01":  # ESTABLISHED
                established += 1
            elif state == "0A":  # LISTEN
                queued += int(queues.split(":")[1], 16)
    return established, queued


def connect() -> Any:
    """A connection to the run's database, from the portal's own settings."""
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    params = {
        "dbname": db["NAME"],
        "user": db["USER"],
        "password": db.get("PASSWORD"),
        "host": db.get("HOST"),
        "port": db.get("PORT"),
        **db.get("OPTIONS", {}),  # the embedded server's socket folder is OPTIONS["host"]
    }
    return psycopg.connect(autocommit=True, **{k: v for k, v in params.items() if v})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True, help="gunicorn's port")
    parser.add_argument("--group", action="append", default=[], metavar="NAME=PID")
    parser.add_argument("--window", type=Path, help="locustfile.py's window file")
    parser.add_argument("--interval", type=float, default=2.0)
    args = parser.parse_args()

    stopping = False

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    conn = connect()
    with conn.cursor() as cursor:
        cursor.execute("SHOW max_connections")
        max_connections = int(cursor.fetchone()[0])
        postmaster = postmaster_pid(cursor)
    groups = []
    for spec in args.group:
        name, pid = spec.split("=", 1)
        groups.append(Group(name, int(pid)))
    if postmaster is not None:
        groups.append(Group("postgresql", postmaster))
    cores = psutil.cpu_count() or 1
    columns = [
        "time",
        "machine_cpu",
        *[f"{group.name}_cpu" for group in groups],
        "connections",
        "active",
        "idle",
        "idle_in_transaction",
        "waiting_on_lock",
        "lock_waits",
        "tcp_established",
        "listen_queue",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    samples: list[dict[str, float]] = []
    waits_on: collections.Counter[str] = collections.Counter()
    psutil.cpu_percent()  # the machine's first interval starts now
    for group in groups:
        group.cpu_seconds_since_last()
    last = time.time()
    with args.out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        while not stopping:
            time.sleep(args.interval)
            now = time.time()
            elapsed = max(1e-6, now - last)
            last = now
            row: dict[str, float] = {"time": round(now, 2)}
            row["machine_cpu"] = psutil.cpu_percent() * cores
            for group in groups:
                row[f"{group.name}_cpu"] = 100 * group.cpu_seconds_since_last() / elapsed
            by_state: collections.Counter[str] = collections.Counter()
            with conn.cursor() as cursor:
                cursor.execute(CONNECTIONS_SQL)
                for state, wait_type, count in cursor.fetchall():
                    by_state[state] += count
                    by_state["waiting_on_lock"] += count if wait_type == "Lock" else 0
                cursor.execute(LOCK_WAITS_SQL)
                lock_waits = 0
                for locktype, mode, relation, count in cursor.fetchall():
                    lock_waits += count
                    waits_on[f"{locktype} {mode} {relation}".strip()] += count
            established, queued = tcp_counts(args.port)
            row |= {
                "connections": sum(v for k, v in by_state.items() if k != "waiting_on_lock"),
                "active": by_state["active"],
                "idle": by_state["idle"],
                "idle_in_transaction": by_state["idle in transaction"],
                "waiting_on_lock": by_state["waiting_on_lock"],
                "lock_waits": lock_waits,
                "tcp_established": established,
                "listen_queue": queued,
            }
            writer.writerow({key: round(value, 1) for key, value in row.items()})
            handle.flush()
            samples.append(row)
    conn.close()
    window = json.loads(args.window.read_text()) if args.window and args.window.exists() else {}
    summarize(samples, groups, window, max_connections, cores, waits_on)


def _avg(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def summarize(
    samples: list[dict[str, float]],
    groups: list[Group],
    window: dict[str, Any],
    max_connections: int,
    cores: int,
    waits_on: collections.Counter[str],
) -> None:
    start = window.get("started_at", 0.0)
    end = start + window.get("seconds", 0.0) if start else math.inf
    # a sample covers the interval before its time
    inside = [s for s in samples if start + 1 <= s["time"] <= end + 1]
    if not inside:
        print("sampler: no samples inside the window")
        return
    print(
        f"\nsampler: {len(inside)} samples over the "
        f"{'window' if start else 'run'} (CPU as % of one core; {cores} cores = {100 * cores} %)"
    )
    names = ["machine", *[group.name for group in groups]]
    print("| what | avg | peak |")
    print("|---|---|---|")
    for name in names:
        values = [s[f"{name}_cpu"] for s in inside]
        print(f"| CPU {name} | {_avg(values):.0f} % | {max(values):.0f} % |")
    ours = [sum(s[f"{g.name}_cpu"] for g in groups) for s in inside]
    other = [s["machine_cpu"] - mine for s, mine in zip(inside, ours, strict=True)]
    print(f"| CPU other processes | {_avg(other):.0f} % | {max(other):.0f} % |")
    for column, label in (
        ("connections", f"PostgreSQL connections (max_connections {max_connections})"),
        ("active", "  active"),
        ("idle_in_transaction", "  idle in transaction"),
        ("waiting_on_lock", "  waiting on a lock"),
        ("lock_waits", "lock waits (pg_locks not granted)"),
        ("tcp_established", "TCP connections to gunicorn"),
        ("listen_queue", "gunicorn listen queue"),
    ):
        values = [s[column] for s in inside]
        print(f"| {label} | {_avg(values):.1f} | {max(values):.0f} |")
    busy_share = sum(s["machine_cpu"] >= CPU_BUSY_PERCENT * cores for s in inside) / len(inside)
    connections_peak = max(s["connections"] for s in inside)
    lock_share = sum(s["lock_waits"] > 0 for s in inside) / len(inside)
    if waits_on:
        print("lock waits on: " + ", ".join(f"{k} ({n})" for k, n in waits_on.most_common(3)))
    saturated = []
    if busy_share >= CPU_BUSY_SHARE:
        saturated.append(
            f"CPU (>= {CPU_BUSY_PERCENT} % of all cores in {busy_share:.0%} of samples)"
        )
    if connections_peak >= CONNECTIONS_SHARE * max_connections:
        saturated.append(f"connections (peak {connections_peak:.0f} of {max_connections})")
    if lock_share >= LOCK_WAIT_SHARE:
        saturated.append(f"locks (waits in {lock_share:.0%} of samples)")
    print(
        "saturated: "
        + ("; ".join(saturated) if saturated else "none")
        + f" (machine busy in {busy_share:.0%} of samples, connections peak "
        f"{connections_peak:.0f}/{max_connections}, lock waits in {lock_share:.0%} of samples)"
    )
    steps = window.get("steps") or []
    if steps:
        seconds = float(window["step_seconds"])
        print(
            "\n| users | CPU machine | CPU gunicorn | CPU postgresql "
            "| connections active peak | lock waits peak |"
        )
        print("|---|---|---|---|---|---|")
        for index, users in enumerate(steps):
            lo, hi = start + index * seconds + 1, start + (index + 1) * seconds + 1
            part = [s for s in inside if lo <= s["time"] <= hi]
            if not part:
                continue
            print(
                f"| {users} | {_avg([s['machine_cpu'] for s in part]):.0f} % | "
                f"{_avg([s.get('gunicorn_cpu', math.nan) for s in part]):.0f} % | "
                f"{_avg([s.get('postgresql_cpu', math.nan) for s in part]):.0f} % | "
                f"{max(s['active'] for s in part):.0f} | {max(s['lock_waits'] for s in part):.0f} |"
            )


if __name__ == "__main__":
    main()
