"""Character accuracy of OCR on generated scanned pages (issue 30 part 3).

    .venv/bin/python benchmarks/ocr_accuracy.py [--json]

Three pages of policy prose (numbers, identifiers, punctuation) are set in two fonts
(Helvetica, Times, 11 pt), rasterized as a scanner would at 150 and 300 dpi
(tests/kb/scans.py) into image-only PDFs, and read back by the ingestion path
(kb.ingestion.pdf.pdf_to_text, which renders each page at 300 dpi for Tesseract). Character
accuracy = 1 - Levenshtein distance / reference length, after collapsing whitespace on both
sides (line breaks are layout, not text). Needs Tesseract (tesseract-ocr, tesseract-ocr-eng);
no database.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("KB_OCR_MAX_PAGES", "100")
# no database is used: a placeholder URL keeps the settings from starting the embedded one
os.environ.setdefault("DATABASE_URL", "postgres://unused@localhost/unused")

PAGES = [
    "Backup retention policy (POL-2041, revised 14 March 2025). The Kestrel vault keeps "
    "every nightly backup for 400 days; the Osprey vault keeps 90 days. Encryption keys "
    "rotate every 45 days, and the on-call engineer approves each rotation in ticket "
    "OPS-7731 before 09:00 UTC.\n\n"
    "Restores are tested quarterly: a random 2% of snapshots is restored into the staging "
    "account (s3://restore-tests/kestrel) and compared byte for byte with its checksum.",
    "Incident severity. A SEV-1 is customer data lost or exposed, or the product down for "
    "more than 30 minutes; the incident commander pages the database team within 5 minutes "
    "and posts an update every 15 minutes.\n\n"
    "A SEV-2 degrades a single feature for some customers. SEV-3 and below are handled in "
    "working hours, without a page. Every SEV-1 and SEV-2 gets a written review within "
    "10 working days, filed under ADR-0007.",
    "Access reviews. Twice a year (January and July) each team lead confirms who may read "
    "production data. Accounts unused for 60 days are suspended; contractors' accounts end "
    "on the last day of their contract.\n\n"
    "Exceptions need the security officer's approval, recorded with a reason and an expiry "
    "date no later than 31 December of the same year.",
]
FONTS = ["Helvetica", "Times"]
SCAN_DPIS = [150, 300]
FONT_SIZE = 11


def levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        previous = current
    return previous[-1]


def normalized(text: str) -> str:
    return " ".join(text.replace("\\", "").split())


def character_accuracy(reference: str, read: str) -> float:
    reference, read = normalized(reference), normalized(read)
    return 1 - levenshtein(reference, read) / len(reference)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import django

    django.setup()
    from kb.ingestion.ocr import ocr_unavailable_reason
    from kb.ingestion.pdf import pdf_to_text
    from tests.kb.scans import scanned_pdf

    if (reason := ocr_unavailable_reason()) is not None:
        sys.exit(reason)
    rows: list[dict[str, Any]] = []
    for font in FONTS:
        for dpi in SCAN_DPIS:
            data = scanned_pdf(list(PAGES), font=font, size=FONT_SIZE, dpi=dpi)
            started = time.perf_counter()
            pdf = pdf_to_text(data)
            seconds = time.perf_counter() - started
            read_pages = [re.sub(r"^\d+\n", "", part) for part in pdf.text.split("## Page ")[1:]]
            accuracies = [
                character_accuracy(ref, got) for ref, got in zip(PAGES, read_pages, strict=True)
            ]
            rows.append(
                {
                    "font": f"{font} {FONT_SIZE} pt",
                    "scan_dpi": dpi,
                    "pages": len(PAGES),
                    "accuracy_per_page": [round(a, 4) for a in accuracies],
                    "accuracy_mean": round(sum(accuracies) / len(accuracies), 4),
                    "seconds_per_page": round(seconds / len(PAGES), 2),
                    "pdf_bytes": len(data),
                }
            )
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("| font | scan dpi | character accuracy per page | mean | s/page | PDF size |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        per_page = " / ".join(f"{a:.2%}" for a in row["accuracy_per_page"])
        print(
            f"| {row['font']} | {row['scan_dpi']} | {per_page} | **{row['accuracy_mean']:.2%}** "
            f"| {row['seconds_per_page']} | {row['pdf_bytes'] // 1024} KiB |"
        )


if __name__ == "__main__":
    main()
