"""Writers for the PDF and Word documents of the answer corpora.

A corpus's build_binaries.py describes each of its documents as one of the four kinds below
(its text and layout) and calls build(). Every byte written depends only on that description, the
corpus's fixed date and its company name: no build time anywhere, fixed zip timestamps, so a
rebuild is byte-identical and git shows no change unless the text did. check_gold.py reads the same
descriptions through source_texts(), so a fact stated in a PDF or Word file can be checked even
where text extraction splits it.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import docx
from docx.shared import Pt
from fpdf import FPDF
from fpdf.enums import TableCellFillMode

NEXT_LINE = {"new_x": "LMARGIN", "new_y": "NEXT"}
HEADING_LEVELS = {"h0": 0, "h1": 1}
LIST_STYLES = {"bullet": "List Bullet", "num": "List Number", "num2": "List Number 2"}


@dataclass(frozen=True)
class Stamp:
    """What every file of one corpus is stamped with: a fixed date (never the time of the build,
    which would change the bytes) and the fictional company whose document it is."""

    date: datetime
    company: str

    @property
    def creator(self) -> str:
        return f"{self.company} build_binaries.py"


class _FooterPDF(FPDF):
    """A4 portrait pages with "<label> - page n of N" at the foot of each."""

    def __init__(self, label: str) -> None:
        super().__init__(orientation="P", unit="mm", format="A4")
        self.label = label

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font("Helvetica", "I", 8)
        self.cell(0, 6, f"{self.label} - page {self.page_no()} of {{nb}}", align="C")


def _start_pdf(
    doc: PdfTable | PdfSections,
    stamp: Stamp,
    margins: tuple[float, float, float],
    title_font: tuple[float, float],
) -> FPDF:
    """A PDF with the document's metadata, a footer of the company and the document's footer
    label, its first page and its title (font size, line height)."""
    pdf = _FooterPDF(f"{stamp.company} - {doc.footer}")
    pdf.set_creation_date(stamp.date)
    pdf.set_title(doc.title)
    pdf.set_subject(doc.subject)
    pdf.set_author(doc.author)
    pdf.set_creator(stamp.creator)
    pdf.set_auto_page_break(auto=True, margin=18)
    pdf.set_margins(*margins)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", title_font[0])
    pdf.multi_cell(0, title_font[1], doc.title, **NEXT_LINE)
    pdf.ln(2)
    return pdf


def _table_text(
    title: str, intro: Sequence[str], header: Sequence[str], rows: Sequence[Sequence[str]]
) -> list[str]:
    """The lines of a titled table as check_gold.py reads them: cells joined by " | "."""
    return [title, *intro, " | ".join(header), *[" | ".join(row) for row in rows]]


@dataclass(frozen=True)
class PdfTable:
    """A PDF of a title, intro paragraphs, a table that runs over pages with its header repeated
    on each, and a footnote."""

    name: str
    title: str
    subject: str
    author: str
    footer: str
    intro: Sequence[str]
    header: Sequence[str]
    rows: Sequence[Sequence[str]]
    footnote: str
    columns: Sequence[float]
    align: Sequence[str]
    fill: tuple[int, int, int]
    margins: tuple[float, float, float] = (12, 16, 12)
    title_size: float = 16
    font_size: float = 8.5
    line_height: float = 5.5

    def text(self) -> str:
        return "\n".join(
            _table_text(self.title, self.intro, self.header, self.rows) + [self.footnote]
        )

    def write(self, path: Path, stamp: Stamp) -> None:
        pdf = _start_pdf(self, stamp, self.margins, (self.title_size, 8))
        pdf.set_font("Helvetica", "", 10)
        for para in self.intro:
            pdf.multi_cell(0, 5, para, **NEXT_LINE)
            pdf.ln(2)
        pdf.ln(2)
        pdf.set_font("Helvetica", "", self.font_size)
        with pdf.table(
            col_widths=self.columns,
            text_align=self.align,
            line_height=self.line_height,
            repeat_headings=1,
            cell_fill_color=self.fill,
            cell_fill_mode=TableCellFillMode.ROWS,
        ) as table:
            table.row(self.header)
            for row in self.rows:
                table.row(row)
        pdf.ln(4)
        pdf.set_font("Helvetica", "I", 9)
        pdf.multi_cell(0, 5, self.footnote, **NEXT_LINE)
        pdf.output(str(path))


@dataclass(frozen=True)
class PdfSections:
    """A PDF of prose over two or more pages: a title, an italic line of owner and dates, then
    numbered sections; a paragraph starting "- " is indented as a list item."""

    name: str
    title: str
    subject: str
    author: str
    footer: str
    meta: str
    sections: Sequence[tuple[str, Sequence[str]]]
    heading_font: tuple[float, float] = (13, 8)
    body_font: tuple[float, float] = (11, 6)
    gaps: tuple[float, float] = (1.5, 3)

    def text(self) -> str:
        return "\n".join(
            [self.title, self.meta] + [h + "\n" + "\n".join(ps) for h, ps in self.sections]
        )

    def write(self, path: Path, stamp: Stamp) -> None:
        pdf = _start_pdf(self, stamp, (22, 20, 22), (17, 9))
        pdf.set_font("Helvetica", "I", 10)
        pdf.multi_cell(0, 5.5, self.meta, **NEXT_LINE)
        pdf.ln(4)
        for heading, paragraphs in self.sections:
            pdf.set_font("Helvetica", "B", self.heading_font[0])
            pdf.multi_cell(0, self.heading_font[1], heading, **NEXT_LINE)
            pdf.set_font("Helvetica", "", self.body_font[0])
            for para in paragraphs:
                indent = 6 if para.startswith("- ") else 0
                pdf.set_x(pdf.l_margin + indent)
                pdf.multi_cell(0, self.body_font[1], para, **NEXT_LINE)
                pdf.ln(self.gaps[0])
            pdf.ln(self.gaps[1])
        pdf.output(str(path))


def _new_docx(title: str, author: str, subject: str, stamp: Stamp) -> docx.Document:
    """A Word document whose properties carry the stamp's date, not today's."""
    document = docx.Document()
    props = document.core_properties
    props.title = title
    props.author = author
    props.subject = subject
    props.last_modified_by = author
    props.created = stamp.date.replace(tzinfo=None)
    props.modified = stamp.date.replace(tzinfo=None)
    props.last_printed = stamp.date.replace(tzinfo=None)
    props.revision = 1
    props.comments = "Generated by build_binaries.py"
    return document


def _save_reproducible(document: docx.Document, path: Path, stamp: Stamp) -> None:
    """Save with every zip entry dated by the stamp, so the bytes are identical on every run."""
    buffer = io.BytesIO()
    document.save(buffer)
    buffer.seek(0)
    date_time = stamp.date.timetuple()[:6]
    with zipfile.ZipFile(buffer) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            info = zipfile.ZipInfo(item.filename, date_time=date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            dst.writestr(info, src.read(item.filename))


def _fill_row(cells: Sequence, values: Sequence[str], size: Pt, bold: bool = False) -> None:
    """Set each cell's text in the given size (bold only where asked: the header row)."""
    for cell, text in zip(cells, values, strict=True):
        cell.text = text
        for run in cell.paragraphs[0].runs:
            if bold:
                run.bold = True
            run.font.size = size


def _add_table(
    document: docx.Document, header: Sequence[str], rows: Sequence[Sequence[str]], size: Pt
) -> None:
    """A gridded table with a bold header row, all text in one small size so it fits the page."""
    table = document.add_table(rows=1, cols=len(header))
    table.style = "Table Grid"
    _fill_row(table.rows[0].cells, header, size, bold=True)
    for values in rows:
        _fill_row(table.add_row().cells, values, size)


@dataclass(frozen=True)
class DocxTable:
    """A Word document of a title, intro paragraphs, one headed table (bold header row) and notes:
    (text, None) is a heading, (text, style) a paragraph in that style."""

    name: str
    title: str
    subject: str
    author: str
    intro: Sequence[str]
    section: str
    header: Sequence[str]
    rows: Sequence[Sequence[str]]
    notes: Sequence[tuple[str, str | None]]
    font_size: float = 9

    def text(self) -> str:
        return "\n".join(
            _table_text(self.title, self.intro, self.header, self.rows)
            + [text for text, _ in self.notes]
        )

    def write(self, path: Path, stamp: Stamp) -> None:
        document = _new_docx(self.title, self.author, self.subject, stamp)
        document.add_heading(self.title, level=0)
        for para in self.intro:
            document.add_paragraph(para)
        document.add_heading(self.section, level=1)
        _add_table(document, self.header, self.rows, Pt(self.font_size))
        for text, style in self.notes:
            if style is None:
                document.add_heading(text, level=1)
            else:
                document.add_paragraph(text, style=style)
        _save_reproducible(document, path, stamp)


@dataclass(frozen=True)
class DocxContent:
    """A Word document of headings, paragraphs and lists, given as (kind, text) pairs: kind is
    a heading level of HEADING_LEVELS, p (a paragraph) or a list kind of LIST_STYLES."""

    name: str
    subject: str
    author: str
    content: Sequence[tuple[str, str]]

    @property
    def title(self) -> str:
        """The h0 heading: the document's title, stated once."""
        return next(text for kind, text in self.content if kind == "h0")

    def text(self) -> str:
        return "\n".join(text for _, text in self.content)

    def write(self, path: Path, stamp: Stamp) -> None:
        document = _new_docx(self.title, self.author, self.subject, stamp)
        for kind, text in self.content:
            if kind in HEADING_LEVELS:
                document.add_heading(text, level=HEADING_LEVELS[kind])
            elif kind == "p":
                document.add_paragraph(text)
            elif kind in LIST_STYLES:
                document.add_paragraph(text, style=LIST_STYLES[kind])
            else:
                raise ValueError(kind)
        _save_reproducible(document, path, stamp)


def with_totals(rows: Sequence[Sequence]) -> list[tuple[str, ...]]:
    """Each (name, what, *scores) row as text with the sum of its scores appended: a scorecard's
    total column is computed here, never typed, so it always adds up."""
    return [
        (name, what, *[str(s) for s in scores], str(sum(scores))) for name, what, *scores in rows
    ]


Binary = PdfTable | PdfSections | DocxTable | DocxContent


def source_texts(documents: Sequence[Binary]) -> dict[str, str]:
    """Plain text of each document by file stem, the slug check_gold.py knows it by."""
    return {Path(doc.name).stem: doc.text() for doc in documents}


def build(docs: Path, documents: Sequence[Binary], date: datetime, company: str) -> None:
    """Write every document into docs/, stamped with the corpus's fixed date and company, and say
    what was written."""
    stamp = Stamp(date, company)
    docs.mkdir(parents=True, exist_ok=True)
    for doc in documents:
        doc.write(docs / doc.name, stamp)
        print(f"wrote docs/{doc.name} ({(docs / doc.name).stat().st_size} bytes)")
