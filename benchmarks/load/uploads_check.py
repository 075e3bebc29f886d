"""Did every upload of a load run end as an ingested document? Asked through the API.

    .venv/bin/python benchmarks/load/uploads_check.py --log OUT/load-uploads.jsonl \\
        --planned 200 --base http://127.0.0.1:8765 [--wait 600]

Reads the uploads locustfile.py's Uploader logged (name, HTTP status, job id), signs in as the
uploading editor, and polls each job (GET /api/kb/jobs/{id}) until all are finished or --wait
seconds have passed (the kb_worker drains the queue meanwhile). An upload is
  ingested  its job is done with a document, and GET /api/kb/documents/{id} shows that
            document under the upload's name with chunks;
  failed    refused at upload (not 202), or its job failed (the job's error is printed);
  lost      accepted (202, a job id) but not finished in time, or done without a readable
            document of its own.
Prints "uploads: N sent, N ingested, N failed, N lost" and exits 1 unless every planned
upload was sent and ingested.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import requests

HOST_HEADER = "demo.localhost"
PASSWORD = "load-test-pw"  # benchmarks/load/prepare.py
PENDING_STATES = {"queued", "extracting", "embedding"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--planned", type=int, required=True)
    parser.add_argument("--base", required=True, help="gunicorn's address, http://127.0.0.1:PORT")
    parser.add_argument("--uploader", default="loadup")
    parser.add_argument("--wait", type=float, default=600, help="seconds to wait for the queue")
    args = parser.parse_args()

    sent = [json.loads(line) for line in args.log.read_text().splitlines() if line.strip()]
    session = requests.Session()
    session.headers["Host"] = HOST_HEADER
    response = session.post(
        f"{args.base}/api/auth/token",
        json={"username": args.uploader, "password": PASSWORD},
        timeout=60,
    )
    response.raise_for_status()
    session.headers["Authorization"] = f"Token {response.json()['token']}"

    refused = [row for row in sent if row["status"] != 202 or not row.get("job_id")]
    jobs: dict[int, dict[str, Any]] = {}
    pending = [row["job_id"] for row in sent if row not in refused]
    started = time.monotonic()
    while pending:
        for job_id in pending:
            reply = session.get(f"{args.base}/api/kb/jobs/{job_id}", timeout=60)
            jobs[job_id] = reply.json() if reply.status_code == 200 else {"state": "missing"}
        pending = [job_id for job_id in pending if jobs[job_id].get("state") in PENDING_STATES]
        if not pending or time.monotonic() - started > args.wait:
            break
        time.sleep(5)
    drained_after = time.monotonic() - started

    ingested, failed, lost = 0, len(refused), 0
    documents: set[int] = set()
    latencies: list[float] = []
    near_duplicates = 0
    for row in sent:
        if row in refused:
            print(f"  refused: {row['name']} (HTTP {row['status']})")
            continue
        job = jobs.get(row["job_id"], {"state": "missing"})
        if job["state"] == "failed":
            failed += 1
            print(f"  failed: {row['name']} (job {row['job_id']}): {job.get('error')}")
            continue
        if job["state"] != "done" or not job.get("document_id"):
            lost += 1
            print(f"  lost: {row['name']} (job {row['job_id']}, state {job['state']})")
            continue
        reply = session.get(f"{args.base}/api/kb/documents/{job['document_id']}", timeout=60)
        document = reply.json() if reply.status_code == 200 else {}
        if document.get("source_path") != row["name"] or not document.get("chunk_count"):
            lost += 1
            print(f"  lost: {row['name']} (job done, document {job['document_id']}: {document})")
            continue
        ingested += 1
        documents.add(document["id"])
        near_duplicates += any("near-duplicate" in w for w in job.get("warnings", []))
        latencies.append(_seconds(job["created_at"], job["finished_at"]))

    print(
        f"uploads: {len(sent)} sent, {ingested} ingested, {failed} failed, {lost} lost "
        f"(planned {args.planned}; {len(documents)} distinct documents, "
        f"{near_duplicates} flagged as near-duplicates)"
    )
    if latencies:
        ordered = sorted(latencies)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        print(
            f"upload to ingested: p50 {statistics.median(ordered):.1f} s, p95 {p95:.1f} s, "
            f"max {ordered[-1]:.1f} s; queue drained {drained_after:.0f} s after the run ended"
        )
    complete = len(sent) == args.planned and ingested == args.planned
    return 0 if complete and len(documents) == ingested else 1


def _seconds(start: str, end: str) -> float:
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


if __name__ == "__main__":
    sys.exit(main())
