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
            is_list = style.lower().startswith("list")
            if not is_list and list_run:
                blocks.append("\n".join(list_run))
                list_run = []
            if style.lower() == "title" or heading:
                first_heading = first_heading or text
            if style.lower() == "title":
                blocks.append(f"# {text}")
            elif heading:
                blocks.append("#" * min(6, int(heading.group(1))) + " " + text)
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
