"""The ingestion budget: what one document may cost before it is refused (a per-file error)."""

from __future__ import annotations

import time
from dataclasses import dataclass


class IngestRejected(ValueError):
    """The source exceeds the ingestion budget or is hostile; nothing of it is written."""


@dataclass(frozen=True, kw_only=True)
class IngestBudget:
    """Limits per document (KB_INGEST_MAX_*); the file-size limit is checked on load."""

    max_frontmatter_bytes: int = 64 * 1024
    max_nesting: int = 20
    max_chunks: int = 10_000
    max_seconds: float = 60.0


class Deadline:
    """Wall-clock budget of one document's preparation."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds

    def extend(self, seconds: float) -> None:
        """Leave `seconds` out of the budget (work bounded by a limit of its own)."""
        self.ends += seconds

    def check(self) -> None:
        if time.monotonic() > self.ends:
            raise IngestRejected(
                f"preparing the document took over {self.seconds:g} seconds "
                "(KB_INGEST_MAX_SECONDS); split it into smaller files"
            )
