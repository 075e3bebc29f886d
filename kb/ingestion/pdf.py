"""PDF bytes -> Markdown-ish text: one `## Page N` section per page, tables as pipe tables.

pdfplumber (MIT) reads the layout, so two-column pages are read column by column and ruled
tables come out as tables; pypdfium2 (Apache-2.0/BSD) does the fast upload-time checks.
Page headings make the page number part of every chunk's heading path, so a citation and the
preview can say "Page 12". Pages without a text layer (scans) are read by OCR when Tesseract
is installed (kb.ingestion.ocr), under the same page headings.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from kb.ingestion.formats import ExtractionProblem, escape_markup, markdown_table
from kb.ingestion.inflation import pdf_inflation_check
from kb.ingestion.ocr import OcrFailed, ocr_max_pages, ocr_pages, ocr_unavailable_reason

PAGE_HEADING = "## Page {number}"
# words crossing the page's vertical centre line, as a share of all words, below which a
# page reads as two columns
TWO_COLUMN_CROSSING_SHARE = 0.04
MIN_COLUMN_LINES = 6  # a side with fewer lines is a table or a caption, not a column
PARAGRAPH_GAP_LINES = 1.5
# the first page's largest type is its heading when it is this much larger than the body text
# (a title is set at 14-24 pt over 10-12 pt body; bold body text is not a heading)
HEADING_SIZE_RATIO = 1.2
MAX_HEADING_LINES = 3  # a title wraps over two or three lines; more is a display paragraph


class PdfProblem(ExtractionProblem):
    """The PDF cannot be ingested; `code` is encrypted, no_text, ocr_limit or unreadable."""


@dataclass(frozen=True, kw_only=True)
class PdfText:
    text: str
    title: str  # the metadata /Title as written (kb.ingestion.titles decides if it is usable)
    first_heading: str  # the first page's largest line(s), when larger than its body text
    pages: int
    ocr_pages: list[int] = field(default_factory=list)  # pages read by OCR
    ocr_seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)


def pdf_check(data: bytes) -> int:
    """Page count of a readable PDF with text, or whose text-less pages OCR will read;
    PdfProblem (message for the user) otherwise."""
    return _pdf_pages(data).pages


@dataclass(frozen=True, kw_only=True)
class _PdfPages:
    pages: int
    textless: list[int]  # pages (1-based) without a text layer
    ocr: bool  # the text-less pages are read by OCR


def _pdf_pages(data: bytes) -> _PdfPages:
    """The page count and the pages without a text layer, checked against what OCR can do: a
    PDF without any text needs Tesseract, and OCR reads at most KB_OCR_MAX_PAGES pages."""
    import pypdfium2 as pdfium

    # before pdfium (here) or pdfminer (pdf_to_text) inflates a stream whole
    pdf_inflation_check(data)
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise PdfProblem(
                "the PDF is encrypted (password protected); remove the password and upload again",
                code="encrypted",
            ) from exc
        raise PdfProblem(f"not a readable PDF ({exc})") from exc
    try:
        pages = len(document)
        if pages == 0:
            raise PdfProblem("the PDF has no pages")
        textless = [number for number in range(1, pages + 1) if not _has_text(document, number)]
    finally:
        document.close()
    if not textless:
        return _PdfPages(pages=pages, textless=[], ocr=False)
    unavailable = ocr_unavailable_reason()
    if unavailable is not None:
        if len(textless) < pages:  # the pages with text are read; the others are warned of
            return _PdfPages(pages=pages, textless=textless, ocr=False)
        raise PdfProblem(
            f"the PDF has no text layer (a scan or images only) and OCR is unavailable here "
            f"({unavailable}); run OCR on it first",
            code="no_text",
        )
    limit = ocr_max_pages()
    if len(textless) > limit:
        raise PdfProblem(
            f"the PDF has {len(textless)} scanned pages (no text layer); OCR reads at most "
            f"{limit} per file (KB_OCR_MAX_PAGES); split it into smaller files",
            code="ocr_limit",
        )
    return _PdfPages(pages=pages, textless=textless, ocr=True)


def _has_text(document: Any, number: int) -> bool:
    page = document[number - 1]
    textpage = page.get_textpage()
    try:
        return bool(textpage.get_text_range().strip())
    finally:
        textpage.close()
        page.close()


def pdf_to_text(data: bytes) -> PdfText:
    """Markdown-ish text of every page, page headings included."""
    import pdfplumber
    from pdfminer.pdfdocument import PDFPasswordIncorrect

    checked = _pdf_pages(data)
    scanned: dict[int, str] = {}
    ocr_seconds = 0.0
    if checked.ocr:
        try:
            read = ocr_pages(data, checked.textless)
        except OcrFailed as exc:
            raise PdfProblem(str(exc)) from exc
        scanned, ocr_seconds = read.pages, read.seconds
    parts: list[str] = []
    warnings: list[str] = []
    first_heading = ""
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            title = _metadata_title(pdf.metadata)
            for number, page in enumerate(pdf.pages, start=1):
                if number in scanned:
                    body = scanned[number]
                else:
                    if number == 1:
                        first_heading = _first_heading(page)
                    body = _page_text(page)
                if not body.strip():
                    warnings.append(f"page {number} has no text")
                parts.append(PAGE_HEADING.format(number=number) + "\n\n" + body.strip() + "\n")
                page.flush_cache()  # keep memory per page, not per document
        if scanned:
            warnings.append(
                f"read by OCR (no text layer): page{'s' if len(scanned) > 1 else ''} "
                f"{', '.join(str(number) for number in sorted(scanned))}; check the text"
            )
    except PDFPasswordIncorrect as exc:  # pragma: no cover - pdf_check refuses these first
        raise PdfProblem("the PDF is encrypted (password protected)", code="encrypted") from exc
    except PdfProblem:
        raise
    except Exception as exc:  # noqa: BLE001 - any parser failure is a bad file, not a crash
        raise PdfProblem(f"could not read the PDF ({type(exc).__name__}: {exc})") from exc
    if scanned and len(scanned) == checked.pages and not any(scanned.values()):
        # images without any text in them (photos, blank scans): nothing to ingest
        raise PdfProblem("the PDF has no text layer and OCR found no text in it", code="no_text")
    return PdfText(
        text="\n".join(parts),
        title=title,
        first_heading=first_heading,
        pages=checked.pages,
        ocr_pages=sorted(scanned),
        ocr_seconds=ocr_seconds,
        warnings=warnings,
    )


def _metadata_title(metadata: dict[str, Any]) -> str:
    raw = metadata.get("Title") or ""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    return " ".join(str(raw).split())


def _first_heading(page: Any) -> str:
    """The page's largest line (and the lines right after it at that size), when set clearly
    larger than the page's body text; "" when nothing stands out."""
    lines: list[tuple[float, str]] = []
    chars_by_size: Counter[float] = Counter()
    for line in page.extract_text_lines(return_chars=True):
        sizes = [round(float(char["size"]), 1) for char in line["chars"] if char["text"].strip()]
        if not sizes:
            continue
        usual = Counter(sizes).most_common(1)[0][0]
        lines.append((usual, " ".join(line["text"].split())))
        chars_by_size.update(sizes)
    if not lines:
        return ""
    body_size = chars_by_size.most_common(1)[0][0]
    largest = max(size for size, _ in lines)
    if largest < body_size * HEADING_SIZE_RATIO:
        return ""
    heading: list[str] = []
    for size, text in lines:
        if abs(size - largest) < 0.5:
            heading.append(text)
            if len(heading) == MAX_HEADING_LINES:
                break
        elif heading:
            break
    return " ".join(heading)


def _page_text(page: Any) -> str:
    """Reading order: a full-width header, then each column top to bottom."""
    width = float(page.width)
    words = page.extract_words()
    if not words:
        return ""
    centre = width / 2
    crossing = [w for w in words if w["x0"] < centre < w["x1"]]
    # words crossing the centre above the columns (a title) form a full-width header
    header_bottom = max((w["bottom"] for w in crossing), default=float(page.bbox[1]))
    body = [w for w in words if w["top"] > header_bottom]
    left_lines = {round(w["top"]) for w in body if w["x1"] <= centre}
    right_lines = {round(w["top"]) for w in body if w["x0"] >= centre}
    two_columns = (
        len(crossing) <= TWO_COLUMN_CROSSING_SHARE * len(words)
        and min(len(left_lines), len(right_lines)) >= MIN_COLUMN_LINES
    )
    if not two_columns:
        return _region_text(page)
    top, bottom = float(page.bbox[1]), float(page.bbox[3])
    regions = []
    if crossing:
        regions.append(page.crop((page.bbox[0], top, page.bbox[2], header_bottom + 0.5)))
    body_top = header_bottom + 0.5 if crossing else top
    regions.append(page.crop((page.bbox[0], body_top, page.bbox[0] + centre, bottom)))
    regions.append(page.crop((page.bbox[0] + centre, body_top, page.bbox[2], bottom)))
    return "\n\n".join(text for region in regions if (text := _region_text(region)).strip())


def _region_text(region: Any) -> str:
    """Lines grouped into paragraphs and tables as pipe tables, in top-to-bottom order."""
    tables = region.find_tables()
    boxes = [table.bbox for table in tables]

    def outside_tables(obj: dict[str, Any]) -> bool:
        return not any(
            x0 <= obj.get("x0", 0) and obj.get("x1", 0) <= x1 and top <= obj.get("top", 0)
            and obj.get("bottom", 0) <= bottom
            for x0, top, x1, bottom in boxes
        )  # fmt: skip

    blocks: list[tuple[float, str]] = []
    text_region = region.filter(outside_tables) if boxes else region
    paragraph: list[str] = []
    paragraph_top = 0.0
    previous_bottom: float | None = None
    for line in text_region.extract_text_lines(return_chars=False):
        height = max(1.0, line["bottom"] - line["top"])
        if (
            previous_bottom is not None
            and line["top"] - previous_bottom > (PARAGRAPH_GAP_LINES - 1) * height + 2
        ):
            blocks.append((paragraph_top, " ".join(paragraph)))
            paragraph = []
        if not paragraph:
            paragraph_top = line["top"]
        paragraph.append(line["text"].strip())
        previous_bottom = line["bottom"]
    if paragraph:
        blocks.append((paragraph_top, " ".join(paragraph)))
    for top, rows in _merged_tables(tables):
        markdown = _table_markdown(rows)
        if markdown:
            blocks.append((top, markdown))
    blocks.sort(key=lambda block: block[0])
    return "\n\n".join(
        escape_markup(text) if not text.startswith("|") else text for _, text in blocks
    )


def _merged_tables(tables: list[Any]) -> list[tuple[float, list[list[str | None]]]]:
    """(top, rows) per table; a table that continues right below one of the same columns (a
    styled header row is often drawn as its own box) joins it."""
    merged: list[tuple[tuple[float, float, float, float], list[list[str | None]]]] = []
    for table in sorted(tables, key=lambda t: t.bbox[1]):
        rows = table.extract()
        if merged:
            (x0, top, x1, bottom), previous = merged[-1]
            same_columns = bool(rows and previous) and len(rows[0]) == len(previous[0])
            if (
                same_columns
                and abs(table.bbox[0] - x0) < 2
                and abs(table.bbox[2] - x1) < 2
                and table.bbox[1] - bottom < 2
            ):
                merged[-1] = ((x0, top, x1, table.bbox[3]), previous + rows)
                continue
        merged.append((table.bbox, rows))
    return [(bbox[1], rows) for bbox, rows in merged]


def _table_markdown(rows: list[list[str | None]]) -> str:
    return markdown_table(
        [[_cell(cell) for cell in row] for row in rows if any(cell for cell in row)]
    )


def _cell(value: str | None) -> str:
    return " ".join((value or "").split()).replace("|", "\\|")
