"""Scanned PDFs made in the test: each page's text is set with fpdf2, rasterized with pypdfium2
at a scan's resolution, and the pixels alone make the page of a new PDF (no text layer).
A page given as `TextPage` keeps its text layer (a mixed PDF). Used by the OCR tests and by
benchmarks/ocr_accuracy.py."""

from __future__ import annotations

import io
import textwrap
from dataclasses import dataclass

A4_WIDTH_MM = 210
A4_HEIGHT_MM = 297


@dataclass(frozen=True)
class TextPage:
    """A page with a text layer (not scanned)."""

    text: str


def typeset(text: str, *, font: str = "Helvetica", size: float = 12) -> bytes:
    """One A4 page of paragraphs (blank-line separated) as a PDF with a text layer."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_margins(20, 20)
    pdf.add_page()
    pdf.set_font(font, size=size)
    for paragraph in text.split("\n\n"):
        pdf.multi_cell(0, size * 0.5, " ".join(paragraph.split()))
        pdf.ln(size * 0.4)
    return bytes(pdf.output())


def scan_image(text: str, *, font: str = "Helvetica", size: float = 12, dpi: int = 200) -> bytes:
    """The page as a greyscale PNG at `dpi`, as a flatbed scanner would give it."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(typeset(text, font=font, size=size))
    try:
        page = document[0]
        image = page.render(scale=dpi / 72, grayscale=True).to_pil()
        page.close()
    finally:
        document.close()
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def scanned_pdf(
    pages: list[str | TextPage], *, font: str = "Helvetica", size: float = 12, dpi: int = 200
) -> bytes:
    """A PDF whose str pages are images only (scans) and whose TextPage pages have text."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_margins(20, 20)
    for page in pages:
        pdf.add_page()
        if isinstance(page, TextPage):
            pdf.set_font("Helvetica", size=12)
            for paragraph in page.text.split("\n\n"):
                pdf.multi_cell(0, 6, " ".join(paragraph.split()))
                pdf.ln(4)
        else:
            image = scan_image(page, font=font, size=size, dpi=dpi)
            pdf.image(io.BytesIO(image), x=0, y=0, w=A4_WIDTH_MM, h=A4_HEIGHT_MM)
    return bytes(pdf.output())


def paragraphs(*lines: str) -> str:
    """Paragraphs wrapped as plain text (blank line between them)."""
    return "\n\n".join(textwrap.fill(line, 90) for line in lines)
