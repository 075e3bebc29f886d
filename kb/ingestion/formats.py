"""What the binary-format extractors (PDF, Word) share: their error, Markdown escaping and
tables as Markdown."""

from __future__ import annotations

import re

# Markdown a line of extracted text would otherwise start (a heading, quote, table, list).
LEADING_MARKUP_RE = re.compile(r"^(\s*)(?:([#>|]|[-*+] )|(\d+)(\. ))", re.MULTILINE)


class ExtractionProblem(ValueError):
    """The file cannot be ingested; `code` says why (unreadable, no_text, encrypted)."""

    def __init__(self, message: str, *, code: str = "unreadable") -> None:
        super().__init__(message)
        self.code = code


def escape_markup(text: str) -> str:
    """Extracted text kept as text: leading Markdown markers are backslash-escaped ("\\# x",
    "\\- x"; an ordered-list number escapes its period: "3\\. x")."""

    def escaped(match: re.Match[str]) -> str:
        if match.group(2):
            return match.group(1) + "\\" + match.group(2)
        return match.group(1) + match.group(3) + "\\" + match.group(4)

    return LEADING_MARKUP_RE.sub(escaped, text)


def markdown_table(rows: list[list[str]]) -> str:
    """Rows of cell texts as a Markdown table (first row = header); "" when there are none."""
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * width]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return "\n".join(lines)
