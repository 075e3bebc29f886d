"""Source bytes -> text: detect the type by extension, refuse binaries, decode leniently."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import PurePosixPath
from typing import Any

from kb.ingestion.docx import docx_to_text
from kb.ingestion.formats import ExtractionProblem
from kb.ingestion.pdf import pdf_to_text

EXTENSION_TYPES: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".docx": "docx",
}
SOURCE_TYPES: tuple[str, ...] = ("markdown", "text", "html", "pdf", "docx")
# binary formats with their own reader (kb.ingestion.pdf / kb.ingestion.docx)
DOCUMENT_TYPES: tuple[str, ...] = ("pdf", "docx")
BINARY_SNIFF_BYTES = 8192


class UnsupportedSource(ValueError):
    """The source cannot be ingested (binary, unknown type); the message says why."""


@dataclass(frozen=True, kw_only=True)
class Extracted:
    text: str
    source_type: str
    warnings: list[str] = field(default_factory=list)
    title: str = ""  # from the file's own metadata (PDF, Word), as written
    first_heading: str = ""  # PDF, Word: the first heading (Markdown and HTML: see prepare)
    metadata: dict[str, Any] = field(default_factory=dict)
    # time spent in OCR: bounded by KB_OCR_MAX_PAGES, not by the preparation's time budget
    ocr_seconds: float = 0.0


def detect_source_type(source_path: str) -> str | None:
    """The source type for the file extension, or None when unsupported."""
    return EXTENSION_TYPES.get(PurePosixPath(source_path.replace("\\", "/")).suffix.lower())


def looks_binary(data: bytes) -> bool:
    """NUL bytes in the first 8 KiB mean a binary file (what git and grep assume)."""
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def decode(data: bytes) -> tuple[str, list[str]]:
    """UTF-8 (BOM tolerated); invalid sequences replaced and reported."""
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8-sig", errors="replace")
        return text, [f"invalid UTF-8 at byte {exc.start}: undecodable bytes replaced with U+FFFD"]


class _HTMLToText(HTMLParser):
    """HTML -> markdown-ish text: headings keep their level so chunking can follow them."""

    SKIP = {"script", "style", "noscript", "template", "head", "svg"}
    BLOCK = {
        "p", "div", "section", "article", "header", "footer", "main", "aside", "nav", "ul",
        "ol", "table", "tr", "blockquote", "pre", "form", "figure", "hr", "dl",
    }  # fmt: skip
    HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip_depth = 0
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        if tag in self.SKIP:
            self.skip_depth += 1
            return
        if tag in self.HEADINGS:
            self.parts.append("\n\n" + "#" * self.HEADINGS[tag] + " ")
        elif tag == "li":
            self.parts.append("\n- ")
        elif tag in ("br",):
            self.parts.append("\n")
        elif tag in self.BLOCK:
            self.parts.append("\n\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in self.SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if tag in self.HEADINGS or tag in self.BLOCK:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self.skip_depth:
            return
        self.parts.append(re.sub(r"[ \t\r\n\f\v]+", " ", data))


def html_to_text(markup: str) -> tuple[str, str]:
    """(text with '#' headings, <title>) from HTML; scripts and styles dropped."""
    parser = _HTMLToText()
    parser.feed(markup)
    parser.close()
    text = "".join(parser.parts)
    text = re.sub(r"[ \t]*\n[ \t]*", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return (text + "\n" if text else ""), html.unescape(parser.title).strip()


def extract(*, source_path: str, content: bytes | str, source_type: str | None = None) -> Extracted:
    """Text of a source file; UnsupportedSource for binaries and unknown types."""
    kind = source_type or detect_source_type(source_path)
    if kind is None:
        raise UnsupportedSource(
            f"unsupported file type {PurePosixPath(source_path).suffix or '(no extension)'}; "
            f"supported: {', '.join(sorted(EXTENSION_TYPES))}"
        )
    if kind not in SOURCE_TYPES:
        raise UnsupportedSource(
            f"unknown source type {kind!r}; use one of {', '.join(SOURCE_TYPES)}"
        )
    if kind in DOCUMENT_TYPES:
        return _extract_document(kind, content)
    warnings: list[str] = []
    if isinstance(content, bytes):
        if looks_binary(content):
            raise UnsupportedSource("binary content (NUL bytes)")
        text, warnings = decode(content)
    else:
        text = content
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if kind == "html":
        text, _title = html_to_text(text)
    return Extracted(text=text, source_type=kind, warnings=warnings)


def _extract_document(kind: str, content: bytes | str) -> Extracted:
    """PDF or Word bytes to Markdown; a file the reader refuses is UnsupportedSource."""
    if isinstance(content, str):
        raise UnsupportedSource(f"{kind} content must be the file's bytes, not text")
    try:
        if kind == "pdf":
            pdf = pdf_to_text(content)
            return Extracted(
                text=pdf.text,
                source_type=kind,
                warnings=pdf.warnings,
                title=pdf.title,
                first_heading=pdf.first_heading,
                metadata={
                    "pages": pdf.pages,
                    **({"ocr_pages": pdf.ocr_pages} if pdf.ocr_pages else {}),
                },
                ocr_seconds=pdf.ocr_seconds,
            )
        word = docx_to_text(content)
    except ExtractionProblem as exc:
        raise UnsupportedSource(str(exc)) from exc
    if not word.text.strip():
        raise UnsupportedSource("the Word document has no text")
    return Extracted(
        text=word.text,
        source_type=kind,
        warnings=word.warnings,
        title=word.title,
        first_heading=word.first_heading,
    )


def html_title(markup: str) -> str:
    """The <title> of an HTML document ('' when absent)."""
    return html_to_text(markup)[1]
