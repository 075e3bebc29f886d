"""Which title a file's own metadata may give its document (pure, no database).

PDF generators and word processors fill the title field with whatever they have: nothing, a
placeholder ("Untitled", "Document1"), the file name, or the printing program and the file
name ("Microsoft Word - report.docx"). One rule keeps those out: a title must name
something other than a file.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

# What a program writes when the author gave no title (digits are ignored: "Document1").
PLACEHOLDER_TITLES = frozenset(
    {"untitled", "untitled document", "document", "doc", "title", "no title", "new document"}
)
# Extensions of files people print or export to PDF or save as Word: a title ending in one
# is a file name, wherever it came from.
DOCUMENT_EXTENSIONS = frozenset(
    {
        "pdf", "doc", "docx", "docm", "dot", "dotx", "odt", "ott", "rtf", "txt", "md", "tex",
        "htm", "html", "xls", "xlsx", "ods", "csv", "ppt", "pptx", "odp", "key", "pages",
        "numbers", "vsd", "vsdx", "pub", "indd", "ps", "eps", "xps",
    }
)  # fmt: skip
MAX_TITLE_CHARS = 500


def _words(text: str) -> str:
    """Lower-case letters and digits, words separated by one space."""
    return " ".join(re.findall(r"[^\W_]+", text.casefold()))


def usable_title(title: str | None, *, source_path: str) -> str:
    """`title` tidied, or "" when it names nothing: blank, no letter or digit, a placeholder,
    a file name (it ends with a document extension) or the upload's own name."""
    tidy = " ".join((title or "").split())[:MAX_TITLE_CHARS]
    words = _words(tidy)
    if not words or " ".join(re.sub(r"\d+", " ", words).split()) in PLACEHOLDER_TITLES:
        return ""
    extension = PurePosixPath(tidy.replace("\\", "/")).suffix.lower().lstrip(".")
    if extension in DOCUMENT_EXTENSIONS:
        return ""
    name = PurePosixPath(source_path.replace("\\", "/"))
    if words in (_words(name.stem), _words(name.name)):
        return ""
    return tidy
