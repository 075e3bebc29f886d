"""Set up the demo tenant for a load run (called by benchmarks/load/run.sh, after demo_setup).

    .venv/bin/python benchmarks/load/prepare.py --users 50 --role editor [--uploader loadup]

Creates or updates the simulated employees load01..loadNN (password load-test-pw) with the
given role in the handbook project (reader: search and chat only; editor: also the Documents
page), the uploading editor when asked, removes the documents and ingest jobs that earlier
runs uploaded (source paths starting with UPLOAD_PREFIX) so every run ingests into the same
project, and clears the cache (the rate-limit counters of earlier runs live there).
One process for all of it: a `manage.py user_create` per user took ~5 s each.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

TENANT = "demo"
PROJECT = "handbook"
PASSWORD = "load-test-pw"
# every upload of the load test is named loadup-<run>-<n>.md (locustfile.upload_file)
UPLOAD_PREFIX = "loadup-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, required=True)
    parser.add_argument("--role", choices=["reader", "editor"], default="reader")
    parser.add_argument("--uploader", default="", help="username of the uploading editor")
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.cache import cache

    from kb.models import Document, IngestJob
    from portal.access.services import user_upsert
    from portal.commands import command_tenant

    with command_tenant(TENANT):
        for number in range(1, args.users + 1):
            user_upsert(
                username=f"load{number:02d}",
                password=PASSWORD,
                project_roles=[(PROJECT, args.role)],
            )
        if args.uploader:
            user_upsert(
                username=args.uploader, password=PASSWORD, project_roles=[(PROJECT, "editor")]
            )
        # Hard delete, not the soft delete of the Documents page: soft-deleted rows and their
        # chunks would pile up run after run and change what every later run searches through.
        jobs, _ = IngestJob.objects.filter(
            project__key=PROJECT, source_path__startswith=UPLOAD_PREFIX
        ).delete()
        documents, _ = Document.objects.filter(
            project__key=PROJECT, source_path__startswith=UPLOAD_PREFIX
        ).delete()
    cache.clear()
    print(
        f"prepare: {args.users} users ({args.role}), "
        f"removed {documents} rows of earlier load uploads and {jobs} job rows"
    )


if __name__ == "__main__":
    main()
