"""Scanned PDF pages -> text with Tesseract (pytesseract), when the binary is installed.

The product runs without Tesseract: `ocr_unavailable_reason` says why OCR cannot run, and a
PDF with no text layer is then refused as before. Pages are rendered with pypdfium2 (the PDF
reader already used for the upload checks). The operator's choices (the command, its
languages, the page limit) are settings (KB_OCR_*); how a page is read is constants here.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings

from kb.ingestion.formats import escape_markup

# Tesseract reads body text best at about 300 dpi (its documentation's advice); lower loses
# small type, higher only costs time (benchmarks/RESULTS.md, "OCR").
RENDER_DPI = 300
PDF_POINTS_PER_INCH = 72
# one page that Tesseract has not read in this long is a hostile or broken image, not a scan
PAGE_TIMEOUT_SECONDS = 120
# a page is rendered with at most this many pixels (A4 at 300 dpi is 8.7 million): a PDF may
# declare a page of 200 by 200 inches, which at 300 dpi would be a 3.6 GB image
MAX_PAGE_PIXELS = 40_000_000
LIST_LANGUAGES_TIMEOUT_SECONDS = 10
# a word broken over two lines ("retain-\nment") is joined when the next line goes on in lowercase
HYPHENATED_RE = re.compile(r"(\w)-\n(?=[a-z])")

ProgressCallback = Callable[[int, int], None]
# Who wants to hear "page n of m read" (the ingestion job sets it; None: nobody).
_progress: ContextVar[ProgressCallback | None] = ContextVar("ocr_progress", default=None)


@contextlib.contextmanager
def ocr_progress(callback: ProgressCallback) -> Iterator[None]:
    """Within the block, OCR reports (pages read, pages to read) to `callback`."""
    token = _progress.set(callback)
    try:
        yield
    finally:
        _progress.reset(token)


@dataclass(frozen=True, kw_only=True)
class OcrResult:
    pages: dict[int, str]  # page number (1-based) -> its text, escaped as extracted text
    seconds: float


class OcrFailed(RuntimeError):
    """Tesseract ran but could not read a page (timeout, a broken image, missing language)."""


def ocr_command() -> str:
    return str(settings.KB["OCR_TESSERACT_CMD"])


def ocr_languages() -> str:
    return str(settings.KB["OCR_LANGUAGES"])


def ocr_max_pages() -> int:
    return int(settings.KB["OCR_MAX_PAGES"])


def ocr_unavailable_reason() -> str | None:
    """None when Tesseract runs here with the configured languages; else why not, in words an
    editor can pass on. Not cached: installing Tesseract takes effect without a restart."""
    command = ocr_command()
    if not command or shutil.which(command) is None:
        return "Tesseract is not installed on this server"
    try:
        listed = subprocess.run(
            [command, "--list-langs"],
            capture_output=True,
            text=True,
            timeout=LIST_LANGUAGES_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "Tesseract does not run on this server"
    # the first line is a header ("List of available languages in ...")
    installed = {line.strip() for line in listed.stdout.splitlines()[1:] if line.strip()}
    missing = [lang for lang in ocr_languages().split("+") if lang and lang not in installed]
    if listed.returncode != 0 or missing:
        return f"Tesseract lacks the language data {'+'.join(missing) or ocr_languages()}"
    return None


def ocr_pages(data: bytes, numbers: list[int]) -> OcrResult:
    """The text of the given pages (1-based) of a PDF, read by Tesseract page by page."""
    import pypdfium2 as pdfium
    import pytesseract

    pytesseract.pytesseract.tesseract_cmd = ocr_command()
    started = time.monotonic()
    report = _progress.get()
    texts: dict[int, str] = {}
    document = pdfium.PdfDocument(data)
    try:
        for done, number in enumerate(numbers):
            if report is not None:
                report(done, len(numbers))
            page = document[number - 1]
            try:
                width, height = page.get_size()
                image = page.render(scale=render_scale(width, height), grayscale=True)
                try:
                    raw = pytesseract.image_to_string(
                        image.to_pil(), lang=ocr_languages(), timeout=PAGE_TIMEOUT_SECONDS
                    )
                except pytesseract.TesseractError as exc:
                    raise OcrFailed(f"OCR of page {number} failed ({exc.message})") from exc
                except RuntimeError as exc:  # pytesseract's timeout
                    raise OcrFailed(
                        f"OCR of page {number} took over {PAGE_TIMEOUT_SECONDS} seconds"
                    ) from exc
                finally:
                    image.close()
            finally:
                page.close()
            texts[number] = ocr_text_to_markdown(raw)
        if report is not None:
            report(len(numbers), len(numbers))
    finally:
        document.close()
    return OcrResult(pages=texts, seconds=time.monotonic() - started)


def render_scale(width_points: float, height_points: float) -> float:
    """Pixels per PDF point for a page: RENDER_DPI, lowered so that the image stays within
    MAX_PAGE_PIXELS."""
    scale = RENDER_DPI / PDF_POINTS_PER_INCH
    area = max(1.0, width_points * height_points)
    return min(scale, (MAX_PAGE_PIXELS / area) ** 0.5)


def ocr_text_to_markdown(raw: str) -> str:
    """Tesseract's lines as paragraphs: blank lines split paragraphs, line breaks inside one
    become spaces, hyphenated breaks are joined, leading Markdown markers are escaped."""
    text = HYPHENATED_RE.sub(r"\1", raw.replace("\f", "\n").replace("\r", ""))
    paragraphs = [" ".join(block.split()) for block in re.split(r"\n\s*\n", text)]
    return "\n\n".join(escape_markup(paragraph) for paragraph in paragraphs if paragraph)
