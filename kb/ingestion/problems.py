"""What the binary-format extractors (PDF, Word) share: their error and Markdown escaping."""

from __future__ import annotations

import re

# Markdown a line of extracted text would otherwise start (a heading, quote, table, list).
LEADING_MARKUP_RE = re.compile(r"^(\s*)([#>|]|[-*+] |\d+\. )", re.MULTILINE)


class ExtractionProblem(ValueError):
    """The file cannot be ingested; `code` says why (unreadable, no_text, encrypted)."""

    def __init__(self, message: str, *, code: str = "unreadable") -> None:
        super().__init__(message)
        self.code = code


def escape_markup(text: str) -> str:
    """Extracted text kept as text: leading Markdown markers are backslash-escaped."""
    return LEADING_MARKUP_RE.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
