"""Pure chunker: heading sections (H1-H3 breadcrumb), paragraph packing, hard cap, overlap.

Every chunk's text is `overlap + slice`, where the slices tile the input exactly, so
"".join(c.text[c.overlap_chars:] for c in chunks) == text. A table too large for one chunk is
cut between rows, and each chunk that continues it starts with the table's header lines as
its overlap. It is a generator: memory stays bounded by one section, whatever the input size.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

HEADING_OPEN_RE = re.compile(r" {0,3}(#{1,6})[ \t]")
FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
WORD_RE = re.compile(r"\w+|[^\w\s]")
PARAGRAPH_BREAK_RE = re.compile(r"\n[ \t]*\n\s*")
PIECE_RE = re.compile(r"\S+\s*")
# Emphasis and code markers; an underscore inside a word belongs to it (INGEST_BACKLOG_EXCEEDED)
INLINE_MARKUP_RE = re.compile(r"[*`]+|(?<!\w)_+|_+(?!\w)")
BREADCRUMB_LEVELS = 3
CHARS_PER_TOKEN = 4
# [CLS] and [SEP] take two places of a BERT-style model's input window.
EMBED_SPECIAL_TOKENS = 2
# A breadcrumb longer than the window still leaves each chunk this many tokens of text.
MIN_WINDOW_BUDGET = 32
# estimate_tokens runs a few percent under real word pieces on technical text (numbers,
# chemical names): fill only this share of the window. On 2,000 SciFact abstracts at a
# 256 window: 6.5 % of chunks overflowed at 1.0, 1 % at 0.9.
EMBED_WINDOW_FILL = 0.9


@dataclass(frozen=True, kw_only=True)
class ChunkDraft:
    chunk_order: int
    heading_path: str
    text: str
    overlap_chars: int
    token_count: int

    @property
    def embed_text(self) -> str:
        """What the embedder sees: the breadcrumb, then the chunk without its own heading lines.

        A section's chunk starts with the heading line(s) the breadcrumb already names; the
        model would read those words twice (and spend its short input window on them).
        """
        if not self.heading_path:
            return self.text
        body = self.text
        if self.overlap_chars == 0:
            while True:
                first, newline, rest = body.partition("\n")
                parsed = heading(first)
                if parsed is None or parsed[0] > BREADCRUMB_LEVELS:
                    break
                body = rest.lstrip("\n") if newline else ""
        return f"{self.heading_path}\n{body}"


@dataclass(frozen=True)
class _Section:
    heading_path: str
    start: int
    end: int
    body_start: int  # first offset after the heading line(s)


def estimate_tokens(text: str) -> int:
    """Word-piece estimate: one token per word or symbol, plus one per 6 letters of long words."""
    return sum(1 + (len(word) - 1) // 6 for word in WORD_RE.findall(text))


def heading(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line (`## Text ##`), else None.

    Plain string work, not one regex: `(.+?)(?:[ \t]+#+)?[ \t]*$` backtracks quadratically
    on a heading line with a long run of spaces.
    """
    opening = HEADING_OPEN_RE.match(line)
    if opening is None or opening.end() == len(line):
        return None
    text = line[opening.end() :].strip(" \t")
    unclosed = text.rstrip("#")
    if unclosed != text and unclosed and unclosed[-1] in " \t":
        text = unclosed.rstrip(" \t")  # drop the optional closing sequence: "## Text ##"
    return len(opening.group(1)), text


def _clean_heading(raw: str) -> str:
    return INLINE_MARKUP_RE.sub("", raw).strip()[:300]


def _breadcrumb(stack: list[str], title: str, several_tops: bool = False) -> str:
    """The heading path; the document's title opens it when the section has no H1 above it,
    or when the document has several H1 sections and this one's is not the title (a Word
    file's Title paragraph, then "Rota" and "Phones" as Heading 1)."""
    parts = [part for part in stack if part]
    if title and (not stack[0] or (several_tops and stack[0] != _clean_heading(title))):
        parts.insert(0, title)
    return " > ".join(parts)


def _headings(text: str) -> Iterator[tuple[int, int, int, str]]:
    """(start, end, level, text) of each heading line outside fenced code."""
    pos = 0
    fence: str | None = None
    length = len(text)
    while pos < length:
        newline = text.find("\n", pos)
        end = length if newline == -1 else newline + 1
        line = text[pos:end].rstrip("\n")
        fence_match = FENCE_RE.match(line)
        if fence is not None:
            if (
                fence_match
                and fence_match.group(1)[0] == fence[0]
                and len(fence_match.group(1)) >= len(fence)
            ):
                fence = None
        elif fence_match:
            fence = fence_match.group(1)
        else:
            found = heading(line)
            if found:
                yield pos, end, found[0], found[1]
        pos = end


def _sections(text: str, title: str) -> Iterator[_Section]:
    stack = [""] * BREADCRUMB_LEVELS
    found = [h for h in _headings(text) if h[2] <= BREADCRUMB_LEVELS]
    several_tops = sum(1 for h in found if h[2] == 1) > 1
    path = _breadcrumb(stack, title)
    start = body_start = 0
    for pos, end, level, raw in found:
        if pos > start:
            yield _Section(path, start, pos, body_start)
        stack[level - 1] = _clean_heading(raw)
        for deeper in range(level, BREADCRUMB_LEVELS):
            stack[deeper] = ""
        path = _breadcrumb(stack, title, several_tops)
        start, body_start = pos, end
    if len(text) > start:
        yield _Section(path, start, len(text), body_start)


def _merged_sections(text: str, title: str) -> Iterator[_Section]:
    """Sections with a blank body (a heading straight followed by a sub-heading, or leading
    blank lines) join the next section, so no chunk is a bare heading."""
    carry: int | None = None
    last: _Section | None = None
    for section in _sections(text, title):
        start = section.start if carry is None else carry
        last = _Section(section.heading_path, start, section.end, section.body_start)
        if not text[section.body_start : section.end].strip():
            carry = start
            continue
        carry = None
        yield last
    if carry is not None and last is not None and text[carry : last.end].strip():
        yield last


def _split_hard(text: str, start: int, end: int, budget: int) -> Iterator[tuple[int, int, int]]:
    """(start, end, tokens) slices of at most `budget` tokens, cut between words."""
    piece_start = start
    tokens = 0
    for match in PIECE_RE.finditer(text, start, end):
        word_tokens = estimate_tokens(match.group())
        if word_tokens > budget:
            # a giant "word" (base64, minified data): cut it by characters
            if match.start() > piece_start:
                yield piece_start, match.start(), tokens
            cursor = match.start()
            while cursor < match.end():
                step = budget * CHARS_PER_TOKEN
                while True:
                    stop = min(match.end(), cursor + step)
                    cut_tokens = estimate_tokens(text[cursor:stop])
                    if cut_tokens <= budget or step == 1:
                        break
                    step = max(1, step // 2)
                yield cursor, stop, cut_tokens
                cursor = stop
            piece_start, tokens = match.end(), 0
            continue
        if tokens + word_tokens > budget and match.start() > piece_start:
            yield piece_start, match.start(), tokens
            piece_start, tokens = match.start(), 0
        tokens += word_tokens
    if end > piece_start:
        yield piece_start, end, tokens


def _blocks(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Paragraph blocks (blank-line separated); each keeps its trailing blank lines."""
    cursor = start
    for match in PARAGRAPH_BREAK_RE.finditer(text, start, end):
        if match.end() > cursor:
            yield cursor, match.end()
            cursor = match.end()
    if end > cursor:
        yield cursor, end


def _is_table(block: str) -> bool:
    lines = [line for line in block.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith("|") for line in lines)


def _rows(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """A table block line by line (each row keeps its newline; the last its blank lines)."""
    cursor = start
    while cursor < end:
        newline = text.find("\n", cursor, end)
        stop = end if newline == -1 else newline + 1
        if not text[stop:end].strip():
            stop = end
        yield cursor, stop
        cursor = stop


def _units(text: str, start: int, end: int, budget: int) -> Iterator[tuple[int, int]]:
    """Paragraph blocks, with a table too large for one chunk split between its rows."""
    for block_start, block_end in _blocks(text, start, end):
        block = text[block_start:block_end]
        if estimate_tokens(block) > budget and _is_table(block):
            yield from _rows(text, block_start, block_end)
        else:
            yield block_start, block_end


def table_header(text: str, start: int) -> str:
    """The header and separator lines of the Markdown table the line at `start` belongs to
    ("" when that line is not a table row, or is the header itself)."""
    if not text[start:].lstrip(" ").startswith("|"):
        return ""
    first = start
    while first > 0:
        line_start = text.rfind("\n", 0, first - 1) + 1
        if not text[line_start:first].lstrip(" ").startswith("|"):
            break
        first = line_start
    lines = text[first:start].splitlines(keepends=True)
    if len(lines) < 2 or not SEPARATOR_ROW_RE.match(lines[1].strip()):
        return ""
    header = lines[0] + lines[1]
    return header if header.endswith("\n") else header + "\n"


SEPARATOR_ROW_RE = re.compile(r"^\|?\s*:?-{2,}")


def _ends_in_table(piece: str) -> bool:
    lines = [line for line in piece.splitlines() if line.strip()]
    return bool(lines) and lines[-1].lstrip().startswith("|")


def _pack(text: str, section: _Section, budget: int) -> Iterator[tuple[int, int, int]]:
    """Greedy packing of paragraph blocks into slices of at most `budget` tokens."""
    whole = estimate_tokens(text[section.start : section.end])
    if whole <= budget:
        yield section.start, section.end, whole
        return
    piece_start, tokens = section.start, 0
    for block_start, block_end in _units(text, section.start, section.end, budget):
        block_tokens = estimate_tokens(text[block_start:block_end])
        if block_tokens > budget:
            # Split from the pending blocks on, so a heading line or a short lead-in
            # paragraph opens the first piece instead of becoming a chunk of its own.
            yield from _split_hard(text, piece_start, block_end, budget)
            piece_start, tokens = block_end, 0
            continue
        if tokens + block_tokens > budget and block_start > piece_start:
            yield piece_start, block_start, tokens
            piece_start, tokens = block_start, 0
        tokens += block_tokens
    if section.end > piece_start:
        yield piece_start, section.end, tokens


def _overlap(previous: str, overlap_tokens: int) -> str:
    """The trailing words of `previous` worth at most `overlap_tokens`, starting at a word."""
    if overlap_tokens <= 0:
        return ""
    window_start = max(0, len(previous) - overlap_tokens * CHARS_PER_TOKEN * 3)
    starts = [match.start() for match in PIECE_RE.finditer(previous, window_start)]
    if window_start > 0 and starts:
        starts = starts[1:]  # the first match may begin mid-word
    chosen, tokens = len(previous), 0
    for word_start in reversed(starts):
        word_tokens = estimate_tokens(previous[word_start:chosen])
        if tokens + word_tokens > overlap_tokens:
            break
        tokens += word_tokens
        chosen = word_start
    if chosen <= 0 or chosen >= len(previous):
        return ""
    return previous[chosen:]


def chunk_text(
    text: str,
    *,
    title: str = "",
    target_tokens: int = 512,
    max_tokens: int = 768,
    overlap_tokens: int = 64,
    embed_window: int = 0,
) -> Iterator[ChunkDraft]:
    """Chunks of `text`: one per heading section, split by paragraphs then words when large.

    `embed_window` (word pieces the embedding model reads; 0 = unbounded) caps each chunk so
    breadcrumb + overlap + text fit in it: the model silently drops whatever is beyond its
    window, so a longer chunk would be searchable by keyword only past that point.
    """
    max_tokens = max(8, max_tokens)
    overlap_tokens = max(0, min(overlap_tokens, max_tokens // 4))
    budget = max(1, min(target_tokens, max_tokens - overlap_tokens))
    if embed_window > 0:
        overlap_tokens = min(overlap_tokens, embed_window // 4)
    order = 0
    for section in _merged_sections(text, title):
        previous = ""
        section_budget = budget
        if embed_window > 0:
            room = int(embed_window * EMBED_WINDOW_FILL) - EMBED_SPECIAL_TOKENS - overlap_tokens
            room -= estimate_tokens(section.heading_path[:1000])
            section_budget = max(MIN_WINDOW_BUDGET, min(budget, room))
        for start, end, tokens in _pack(text, section, section_budget):
            piece = text[start:end]
            # A piece that continues a table opens with the table's header instead of the
            # previous piece's last words: every chunk of a table names its columns.
            overlap = table_header(text, start) if previous else ""
            if previous and not overlap and not _ends_in_table(previous):
                overlap = _overlap(previous, overlap_tokens)  # (a table's rows are no lead-in)
            yield ChunkDraft(
                chunk_order=order,
                heading_path=section.heading_path[:1000],
                text=overlap + piece,
                overlap_chars=len(overlap),
                token_count=tokens + (estimate_tokens(overlap) if overlap else 0),
            )
            order += 1
            previous = piece
