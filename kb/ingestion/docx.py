"""Word (.docx) bytes -> Markdown: heading styles become '#' headings (so the chunker's
heading path follows the document's outline), tables become pipe tables, body order kept.

python-docx (MIT) reads the file; nothing is fetched or rendered.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any

from kb.ingestion.formats import ExtractionProblem, escape_markup, markdown_table
from kb.ingestion.inflation import zip_inflation_check

HEADING_STYLE_RE = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)


class DocxProblem(ExtractionProblem):
    """The file is not a readable Word document, or has no text (`code`: unreadable, no_text)."""


@dataclass(frozen=True, kw_only=True)
class DocxText:
    text: str
    title: str  # the core properties' title as written (kb.ingestion.titles decides)
    first_heading: str  # the first paragraph in the Title or a Heading style
    warnings: list[str] = field(default_factory=list)


def _open(data: bytes) -> Any:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    # python-docx reads every part into memory: the parts' declared sizes are checked first
    zip_inflation_check(data, what="the Word file")
    try:
        return docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise DocxProblem(
            "not a readable Word document (.docx); old .doc files must be saved as .docx"
        ) from exc
    except Exception as exc:  # noqa: BLE001 - a malformed package is a bad file, not a crash
        raise DocxProblem(f"could not read the Word document ({type(exc).__name__})") from exc


def docx_check(data: bytes) -> None:
    """DocxProblem unless the bytes are a Word document with some text."""
    if not docx_to_text(data).text.strip():
        raise DocxProblem("the Word document has no text", code="no_text")


def docx_to_text(data: bytes) -> DocxText:
    """Markdown of the body in document order."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = _open(data)
    numbering_formats = _numbering_formats(document)
    title = " ".join((document.core_properties.title or "").split())
    first_heading = ""
    blocks: list[str] = []
    list_run: list[str] = []
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            text = " ".join(block.text.split())
            style = (block.style.name if block.style is not None else "") or ""
            if not text:
                continue
            heading = HEADING_STYLE_RE.match(style)
            numbering = _numbering(block, numbering_formats)
            is_list = style.lower().startswith("list") or numbering is not None
            if not is_list and list_run:
                blocks.append("\n".join(list_run))
                list_run = []
            if style.lower() == "title" or heading:
                first_heading = first_heading or text
            if style.lower() == "title":
                blocks.append(f"# {text}")
            elif heading:
                blocks.append("#" * min(6, int(heading.group(1))) + " " + text)
            elif is_list and (numbering or "").lower() in ORDERED_FORMATS:
                ordered = sum(1 for item in list_run if not item.startswith("- "))
                list_run.append(f"{ordered + 1}. {text}")
            elif is_list:
                list_run.append(f"- {text}")
            else:
                blocks.append(escape_markup(text))
        elif isinstance(block, Table):
            if list_run:
                blocks.append("\n".join(list_run))
                list_run = []
            table = _table_markdown(block)
            if table:
                blocks.append(table)
    if list_run:
        blocks.append("\n".join(list_run))
    text = "\n\n".join(blocks)
    return DocxText(text=(text + "\n") if text else "", title=title, first_heading=first_heading)


# Word's number formats of an ordered list (a "bullet" level is unordered).
ORDERED_FORMATS = frozenset(
    {"decimal", "decimalzero", "lowerletter", "upperletter", "lowerroman", "upperroman"}
)


def _numbering_formats(document: Any) -> dict[tuple[str, str], str]:
    """(numId, ilvl) -> the level's number format ("decimal", "bullet", ...), from the
    document's numbering part; empty when it has none."""
    from docx.oxml.ns import qn

    try:
        numbering = document.part.numbering_part.element
    except (KeyError, NotImplementedError):
        return {}
    levels: dict[str, dict[str, str]] = {}
    for abstract in numbering.findall(qn("w:abstractNum")):
        formats = {}
        for level in abstract.findall(qn("w:lvl")):
            found = level.find(qn("w:numFmt"))
            if found is not None:
                formats[level.get(qn("w:ilvl")) or "0"] = found.get(qn("w:val")) or ""
        levels[abstract.get(qn("w:abstractNumId")) or ""] = formats
    out: dict[tuple[str, str], str] = {}
    for num in numbering.findall(qn("w:num")):
        abstract_id = num.find(qn("w:abstractNumId"))
        if abstract_id is None:
            continue
        for ilvl, fmt in levels.get(abstract_id.get(qn("w:val")) or "", {}).items():
            out[(num.get(qn("w:numId")) or "", ilvl)] = fmt
    return out


def _numbering(paragraph: Any, formats: dict[tuple[str, str], str]) -> str | None:
    """The number format of the list a paragraph is an item of (its own numbering, else its
    style's), or None when it is in no list."""
    from docx.oxml.ns import qn

    elements = [paragraph._p.pPr]
    style = paragraph.style
    while style is not None:  # a style's numbering, or the style it is based on
        elements.append(style.element.pPr)
        style = style.base_style
    for ppr in elements:
        num_pr = ppr.find(qn("w:numPr")) if ppr is not None else None
        if num_pr is None:
            continue
        num_id = num_pr.find(qn("w:numId"))
        if num_id is None or num_id.get(qn("w:val")) in (None, "0"):
            return None  # numbering switched off
        ilvl = num_pr.find(qn("w:ilvl"))
        level = ilvl.get(qn("w:val")) if ilvl is not None else "0"
        return formats.get((num_id.get(qn("w:val")) or "", level or "0"), "bullet")
    return None


def _table_markdown(table: Any) -> str:
    rows: list[list[str]] = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            # merged cells repeat the same cell object; show the text once
            if cell._tc is previous:
                cells.append("")
                continue
            previous = cell._tc
            cells.append(" ".join(cell.text.split()).replace("|", "\\|"))
        if any(cells):
            rows.append(cells)
    return markdown_table(rows)
