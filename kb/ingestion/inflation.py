"""Decompression bombs: a Word file's zip parts and a PDF's Flate streams are measured before
anything inflates them, and a file whose parts inflate far beyond their stored size is refused
(`code` decompression_bomb) instead of being inflated in memory at upload and again in the
worker.

Word files: python-docx reads every part of the package into memory, and Python's zipfile
never inflates a part beyond the size the zip's directory declares for it, so the declared
sizes are checked without inflating anything. PDFs: pdfplumber inflates each page's content
stream whole; each Flate stream is inflated here in pieces, keeping none of it, and stops at
the first limit it crosses. Images are skipped (text extraction never decodes them), as are
streams whose first filter is not Flate (what the PDF libraries let us measure).
"""

from __future__ import annotations

import io
import zipfile
import zlib
from typing import Any

from kb.ingestion.formats import ExtractionProblem

MIB = 1024 * 1024
# A part larger than the grace inflating more than MAX_INFLATE_RATIO times its stored size is a
# bomb: Office XML compresses 3-30x (a style sheet ~30x), PDF content streams 3-10x, images
# barely; deflate tops out near 1000x, where bombs sit. Small parts may compress very well.
MAX_INFLATE_RATIO = 200
INFLATE_GRACE_BYTES = 1 * MIB
# All parts together: far more text than the ingestion budget (KB_INGEST_MAX_CHUNKS) takes.
MAX_INFLATED_BYTES = 128 * MIB
PIECE_BYTES = 1 * MIB  # inflated per step while measuring a PDF stream

CODE = "decompression_bomb"


def _part_problem(
    what: str, stored: int, inflated: int, *, at_least: bool = False
) -> ExtractionProblem | None:
    if inflated > INFLATE_GRACE_BYTES and inflated > MAX_INFLATE_RATIO * max(stored, 1):
        size = f"more than {inflated - 1}" if at_least else str(inflated)
        return ExtractionProblem(
            f"{what} inflates from {stored} to {size} bytes (more than {MAX_INFLATE_RATIO} "
            "times); refused as a possible decompression bomb",
            code=CODE,
        )
    return None


def _total_problem(what: str) -> ExtractionProblem:
    return ExtractionProblem(
        f"{what} inflate to more than {MAX_INFLATED_BYTES} bytes together; refused as a "
        "possible decompression bomb",
        code=CODE,
    )


def zip_inflation_check(data: bytes, *, what: str) -> None:
    """ExtractionProblem (decompression_bomb) when a part of the zip `data` declares a size
    past the limits; nothing is inflated. A file that is not a zip passes (its reader says so)."""
    try:
        parts = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        return
    total = 0
    for part in parts:
        problem = _part_problem(
            f"{what}'s part {part.filename}", part.compress_size, part.file_size
        )
        if problem is not None:
            raise problem
        total += part.file_size
        if total > MAX_INFLATED_BYTES:
            raise _total_problem(f"{what}'s parts")


def pdf_inflation_check(data: bytes) -> None:
    """ExtractionProblem (decompression_bomb) when a Flate stream of the PDF `data` inflates
    past the limits. A PDF the parser cannot open passes (pdfium then says why: encrypted,
    unreadable)."""
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfparser import PDFParser

    try:
        document = PDFDocument(PDFParser(io.BytesIO(data)))
    except Exception:  # noqa: BLE001 - encrypted or malformed: pdf_check reports it
        return
    total = 0
    for objid, stream in _direct_streams(document):
        inflated = _flate_size(stream, limit=MAX_INFLATED_BYTES - total)
        if inflated is None:
            continue
        stored = len(stream.rawdata or b"")
        problem = _part_problem(f"stream {objid} of the PDF", stored, inflated, at_least=True)
        if problem is not None:
            raise problem
        total += inflated
        if total > MAX_INFLATED_BYTES:
            raise _total_problem("the PDF's streams")


def _direct_streams(document: Any) -> Any:
    """(object id, stream) of every stream stored directly in the file. Streams never sit in
    object streams, and reading an object inside one would inflate that object stream whole."""
    from pdfminer.pdftypes import PDFStream

    seen: set[int] = set()
    for xref in document.xrefs:
        for objid in xref.get_objids():
            if objid in seen:
                continue
            seen.add(objid)
            try:
                in_stream, _, _ = xref.get_pos(objid)
                if in_stream is not None:
                    continue
                obj = document.getobj(objid)
            except Exception:  # noqa: BLE001 - a broken object: the readers will say so
                continue
            if isinstance(obj, PDFStream):
                yield objid, obj


def _flate_size(stream: Any, *, limit: int) -> int | None:
    """Bytes the stream inflates to, counting at most past the first limit it crosses (the
    ratio, or `limit`); None for images and streams whose first filter is not Flate."""
    from pdfminer.psparser import LIT

    if stream.get("Subtype") is LIT("Image"):
        return None
    filters = stream.get_filters()
    if not filters or filters[0][0] not in (LIT("FlateDecode"), LIT("Fl")):
        return None
    raw = stream.rawdata or b""
    cap = min(limit, max(MAX_INFLATE_RATIO * len(raw), INFLATE_GRACE_BYTES)) + 1
    inflater = zlib.decompressobj()
    size = 0
    pending = raw
    try:
        while size < cap:
            piece = inflater.decompress(pending, PIECE_BYTES)
            size += len(piece)
            pending = inflater.unconsumed_tail
            if not piece and not pending:
                break
    except zlib.error:
        return size  # a broken stream inflates no further; pdfminer stops there too
    return size
