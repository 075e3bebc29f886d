"""Quotable units of a chunk: what a reader can quote on its own.

A unit is a sentence of a paragraph, a list item (with the heading or lead-in it sits under),
a table row (with its column headers), or a line of a code block. Markup is removed, links
render as the titles of the documents they point to, and fragments a chunk window cut off are
dropped. Items of one list and rows of one table share a `group`, so a list can be quoted whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from kb import words
from kb.markup import to_prose

MAX_UNIT_CHARS = 400
OWNERS = "owners"  # the kind of the unit that states a document's curated owners
STATUS = "status"  # ...and of the one that states a record's curated status
MAX_CONTEXT_CHARS = 90
MIN_CLAUSE_WORDS = 6  # a cut-off unit kept up to its last clause must still say something
# A sentence ends at . ! ? before a capital or a digit, but not after an abbreviation
# ("Symphony No. 9", "Piano Concerto in A minor, Op. 7", "St. Paul's", "e.g. Redis", "Gen.
# Grant").
_ABBREVIATIONS = (
    "No Nos St Dr Mr Ms Mrs Prof vs e.g i.e Mt Fig ca Op Opp Vol Vols pp Art Sec Ch Jr Sr Gen "
    "Col Capt Lt Gov Sen Fr approx cf"
).split()
_SENTENCE_END = re.compile(
    "".join(rf"(?<!\b{re.escape(a)}\.)" for a in _ABBREVIATIONS)
    + r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[`*])"
)
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_QUOTE_MARKER = re.compile(r"^\s*>\s?")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}")
# An option that was considered and not chosen: its section says so, or its own last words.
_ALTERNATIVES = re.compile(
    r"\b(alternatives?|options? considered|considered options?|rejected|not chosen)\b", re.I
)
_NOT_CHOSEN = re.compile(r"\b(rejected|not chosen|deferred)\W*$", re.IGNORECASE)
# A heading that says how to do something: the items under it are a procedure's steps,
# numbered or not ("How to check", "Steps", "Procedure")
HOWTO_HEADING = re.compile(
    r"^\W*(?:\d+[.)]?\s*)?(?:how to|how do (?:i|we|you)|steps?\b|procedure\b|instructions\b)",
    re.I,
)
# A sentence that announces the list after it ("all eight of the following are in place")
_ANNOUNCES_LIST = re.compile(r"\b(?:the following|as follows|listed below|below are)\b", re.I)
# A sentence that opens with a pronoun goes on about what the sentence before named
_ANAPHOR = re.compile(
    r"(?:(?:until|after|before|since|despite|because of|apart from|besides)\s+)?"
    r"(?:it|its|they|their|them|this|these|that|those|he|she|his|her)\b",
    re.I,
)  # "Their passwords ...", "Until that is approved ...": what it stands for came before
# "In the same year Pacini described ...", "Later that month, ...": a sentence opening with
# the time of the sentence before (not "reported the same day" of its own event)
_SAME_TIME = re.compile(
    r"(?:(?:in|during|on|by|later|earlier|early|late)\s+){0,2}(?:the same|that same|that)\s+"
    r"(?:year|month|week|day|decade|century|season|spring|summer|autumn|winter)\b",
    re.I,
)
# "The proposal was rejected ...": a definite article before the word it names
_DEFINITE = re.compile(r"the\s+([a-z][\w-]*)", re.I)
# A sentence saying the one before it no longer holds: "That exception no longer exists.",
# "This is no longer the case.", "This rule was withdrawn in 2024." (not a rule of its own
# that changed: "The nurse in charge may no longer suspend an alarm")
_REVOKES = re.compile(
    r"(?:that|this|these|those|it)\b(?:\s+[\w-]+){0,2}?\s+(?:no longer (?:exists?|appl(?:y|ies)|"
    r"holds?|stands?|is the case|the case|in force|valid)|(?:is|are|was|were|has been|have been) "
    r"no longer (?:the case|in force|valid|allowed|permitted)|(?:was|were|has been|have been) "
    r"(?:withdrawn|removed|revoked|dropped|abolished|scrapped|cancell?ed|retired))\b",
    re.I,
)
# an item that defines something: a short label, then a colon ("Retries: exponential ...")
_ITEM_LABEL = re.compile(r"^([^:;.,()]{2,40}):\s")
# A leading "\3." or "\#": extracted PDF/Word text keeps Markdown markers escaped.
_ESCAPED_MARKER = re.compile(r"^\\(?=[#>|*+\-\d])")


@dataclass(frozen=True)
class Unit:
    """One quotable piece of a chunk, as prose, with the context that makes it readable."""

    text: str  # the quote, markup removed, with its context prefix when it is an item/row
    kind: str  # sentence | item | row | code | title | owners
    section: str  # nearest heading
    position: int
    decision: bool = False  # a paragraph's bold lead statement
    context: str = ""  # the lead-in it follows (matched, not quoted when long)
    alternative: bool = False  # an option that was considered and not chosen
    match: str = ""  # the text without the titles of the documents it links to
    label: str = ""  # what an item defines ("Retries" in "**Retries**: exponential backoff ...")
    group: int = -1  # items of one list (rows of one table) share a group; sentences have -1
    bare: str = ""  # an item or row without its context prefix (to quote a list whole)
    step: bool = False  # an item of a numbered list: a step of a procedure
    # the sentence that announced the item's list ("... all eight of the following are in
    # place."): matched with the item, never quoted, and no part of which list it is
    intro: str = ""
    # the words the acronyms it uses stand for, as its document defines them ("CCP1 Baking":
    # critical control point): matched, never quoted
    means: str = ""
    # the sentence after it says it no longer holds ("Revision 3 allowed a supervisor to cut
    # a lock. That exception no longer exists."), or it is that sentence: what used to be so
    revoked: bool = False

    @property
    def words(self) -> str:
        """What the question's words are matched against: a link to the outage postmortem
        does not make a sentence about the outage."""
        return self.match or self.text

    @property
    def body_start(self) -> int:
        """Where the item or row itself starts in `text`, after its context prefix (0 when
        it has none)."""
        return len(self.text) - len(self.bare) if self.bare and self.text.endswith(self.bare) else 0


# A reported question: "Kieran asked whether EBME can just plug them in", "someone asked if
# we met the SLA". The sentence restates a question; it is not what the source states.
_REPORTED_QUESTION = re.compile(
    r"\b(?:asked|asking|asks|wondered|wondering|queried|wanted to know)\s+(?:whether|if)\b",
    re.I,
)


# The name of a table's value column that says nothing of what it holds ("Item | Value")
_GENERIC_COLUMNS = frozenset(
    words.terms("value values detail details description notes info information content")
)


# A message of a chat export: a time stamp, then who wrote it ("[2026-01-13 12:06] Jason
# Kerr: ...", "13/01/2026, 12:06 - Jason Kerr: ...").
_CHAT_MESSAGE = re.compile(
    r"^\s*\[?\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4},?\s+\d{1,2}:\d{2}(?::\d{2})?\]?\s*[-–]?\s*"
    r"[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3}:\s"
)


def chat_message(unit: Unit) -> bool:
    """Whether the unit is a message someone typed in a chat (by its time stamp and sender)."""
    return bool(_CHAT_MESSAGE.match(unit.bare or unit.text))


def reports_a_question(unit: Unit) -> bool:
    """Whether the unit tells of a question someone asked (a meeting note's "X asked
    whether ..."): the words it shares with a question are the question's, not an answer."""
    return bool(_REPORTED_QUESTION.search(unit.text))


def _clean(text: str, link_titles: dict[str, str]) -> str:
    return " ".join(to_prose(text, link_titles).split())


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def with_context(context: str, body: str) -> str:
    """The body after its lead-in ("Never remote reset these fault codes: 3300 — ..."),
    unless it opens with it already."""
    if not context or body.lower().startswith(context.lower()):
        return body
    return f"{context}: {body}"


def asks(unit: Unit) -> bool:
    """The unit is a question (an open point, an FAQ's question): it states nothing."""
    return (unit.bare or unit.text).rstrip().endswith("?")


def spelled_out(units: list[Unit], defined: dict[str, str]) -> list[Unit]:
    """The units with what the acronyms they use stand for ("CCP1", "CCPs": the critical
    control points), when their document defines them."""
    if not defined:
        return units
    uses = re.compile(rf"\b({'|'.join(map(re.escape, defined))})(?:s|\d+[a-z]?)?\b")
    spelled: list[Unit] = []
    for unit in units:
        used = uses.findall(unit.text)
        means = " ".join(dict.fromkeys(defined[acronym] for acronym in used))
        spelled.append(replace(unit, means=means) if used else unit)
    return spelled


# "Revision 3 (2022): every 4 hours; Revision 4 (now): every 2 hours", "every 3 hours instead
# of every 4": a unit that says something changed, not one that only names a change ("after any
# setting change")
_VERSION = re.compile(r"\b(?:rev(?:ision)?|version|issue|v)\.?\s*(\d+)\b", re.I)
_CHANGE_SAID = re.compile(
    r"\b(?:instead of|no longer|used to be|previously|formerly|was changed|were changed)\b"
    # "P1 response target shortened from 15 to 10 minutes"
    r"|\b[a-z]{3,}(?:ed|en)\s+from\s+\S+\s+to\b",
    re.I,
)


def states_change(unit: Unit) -> bool:
    """The unit says something changed: it sets two versions side by side, or says what was
    before."""
    versions = {match.group(1) for match in _VERSION.finditer(unit.text)}
    return len(versions) >= 2 or bool(_CHANGE_SAID.search(unit.text))


# Words that say something is not so (or is so of none, or only without it).
_SAYS_NOT = re.compile(
    r"\b(?:not|no|never|none|nor|neither|without|cannot|except|\w+n['’]t)\b", re.I
)


def says_not(unit: Unit) -> bool:
    """The unit, its heading or its lead-in says that something is not so ("The Machame
    route has no huts", the rows under "Codes that must never be reset remotely")."""
    return bool(_SAYS_NOT.search(f"{unit.text} {unit.section} {unit.context}"))


def refers_back(unit: Unit) -> bool:
    """A sentence opening with a pronoun ("They are reviewed every six months."), or naming
    again what the sentence before it said ("The proposal was rejected ..."): it says nothing
    of what it is about without the sentence before it."""
    return unit.kind == "sentence" and _goes_on(unit.text, unit.context)


def _goes_on(sentence: str, before: str) -> bool:
    """The sentence opens with a pronoun, or with "the" and a word the sentence before
    states in some form (proposed ... "The proposal"), or says its time is that sentence's
    ("in the same year"): it goes on about that sentence's subject."""
    if _ANAPHOR.match(sentence) or (before and _SAME_TIME.match(sentence)):
        return True
    named = _DEFINITE.match(sentence)
    return bool(
        named and before and words.matching(words.terms(named.group(1)), words.terms(before))
    )


def heading_context(section: str) -> str:
    """A heading as the context of the items under it (its number dropped)."""
    section = re.sub(r"^\s*(\d+[.)]|§\d+)\s*", "", section).strip()
    return section if len(section) <= MAX_CONTEXT_CHARS else ""


def _starts_inside_fence(text: str) -> bool:
    """A chunk cut from the middle of a code block: an odd number of fence lines whose first
    is bare (no language) and is followed by a blank line or markdown, not by code."""
    lines = text.splitlines()
    fences = [i for i, line in enumerate(lines) if line.strip().startswith(("```", "~~~"))]
    if len(fences) % 2 == 0 or lines[fences[0]].strip() not in ("```", "~~~"):
        return False
    following = next((line for line in lines[fences[0] + 1 :] if line.strip()), "")
    blank_after = fences[0] + 1 < len(lines) and not lines[fences[0] + 1].strip()
    return blank_after or bool(_LIST_MARKER.match(following) or _HEADING.match(following.strip()))


def split_units(
    text: str,
    *,
    section: str = "",
    link_titles: dict[str, str] | None = None,
    continues: bool = False,
    preceding: str = "",
) -> list[Unit]:
    """The quotable units of a markdown chunk (see the module docstring).

    `continues`: the chunk is not its document's first, so it may open with the previous
    chunk's last words (the overlap starts at any word): a leading fragment of a sentence
    is dropped, the previous chunk holds it whole. `preceding`: the paragraph before the
    chunk in its section (in the previous chunk), the lead-in of a list or table it opens with.
    """
    titles = link_titles or {}
    linked_titles = sorted(set(titles.values()), key=len, reverse=True)
    units: list[Unit] = []
    paragraph: list[str] = []
    item: list[str] = []
    fence: list[str] | None = None
    header: list[str] | None = None
    labelled_values = False  # the table is one of labelled values ("Item | Value")
    lead = ""  # a short paragraph ending with ':' introduces the list/table/code after it
    lead_of_item = False  # ...or a list item does, when it ends with ':'
    # the same lead-in however long: matched against the question, never quoted
    lead_text = _clean(preceding, link_titles or {}) if preceding else ""
    announced = ""
    depth = 9
    current = section
    if _starts_inside_fence(text):
        fence = []  # the chunk window began inside a code block: its first fence closes it

    groups = {"current": 0, "open": False}
    numbered = [False]  # the item being read opened with "1." or "2)"

    def add(
        body: str,
        kind: str,
        *,
        decision: bool = False,
        label: str = "",
        bare: str = "",
        around: str = "",
        step: bool = False,
        revoked: bool = False,
    ) -> None:
        body = body.strip()
        if len(body.split()) < 3:
            return
        if len(body) > MAX_UNIT_CHARS:
            body = body[:MAX_UNIT_CHARS].rsplit(" ", 1)[0] + " …"
        is_decision = decision
        alternative = bool(_ALTERNATIVES.search(current)) or bool(_NOT_CHOSEN.search(body[-40:]))
        context = (lead_text or around) if kind != "sentence" else around
        match = f"{label}: {body}" if kind == "row" and label else body
        for title in linked_titles:
            if kind == "row" and body.startswith(title):
                continue  # a row's first cell says what the row is about
            match = match.replace(title, " ")
        if kind == "sentence":
            if groups["open"]:
                groups["current"] += 1
                groups["open"] = False
            group = -1
        else:
            groups["open"] = True
            group = groups["current"]
        units.append(
            Unit(
                body,
                kind,
                current,
                len(units),
                is_decision,
                context,
                alternative,
                match,
                label,
                group,
                bare.strip() or body,
                step,
                announced if kind != "sentence" else "",
                revoked=revoked,
            )
        )

    def flush_paragraph() -> None:
        nonlocal lead, lead_text, announced, lead_of_item
        if not paragraph:
            return
        raw = " ".join(paragraph)
        paragraph.clear()
        bold_lead = raw.lstrip().startswith("**")
        prose = _clean(raw, titles)
        sentences = [s.strip() for s in _SENTENCE_END.split(prose) if s.strip()]
        # "**8. Access reviews.** Team leads confirm ...": a bold title of a few words names
        # what the paragraph's sentences are about, as a heading does
        bold = _BOLD_TITLE.match(raw)
        title, opening = "", 0  # the title, and how many of the sentences it is
        if bold:
            said = _clean(bold.group(1), titles)
            opening = next(
                (n for n in range(1, len(sentences)) if " ".join(sentences[:n]) == said), 0
            )
            title = re.sub(r"^\d+[.)]\s*", "", said).rstrip(".") if opening else ""
        for index, clean in enumerate(sentences):
            if clean.endswith(":"):
                lead = clean[:-1] if len(clean) <= MAX_CONTEXT_CHARS else ""
                lead_text = clean[:-1]
                lead_of_item = False
                continue
            if _ANNOUNCES_LIST.search(clean):
                # "... only when all eight of the following are in place.": what the list
                # after it is for, matched with its items
                announced = clean
            # "Their passwords are in the safe": what "their" stands for is in the sentence
            # before, matched as the sentence's context
            before = sentences[index - 1] if index > opening else ""
            earlier = before if _goes_on(clean, before) else ""
            if title and index >= opening:
                earlier = f"{title}: {earlier}" if earlier else title
            after = sentences[index + 1] if index + 1 < len(sentences) else ""
            add(
                clean,
                "sentence",
                decision=bold_lead and index == 0,
                around=earlier,
                # the sentence the next one revokes, and the one revoking it (quoted with
                # it): both tell what used to hold
                revoked=_REVOKES.match(after) is not None
                or bool(earlier and _REVOKES.match(clean)),
            )

    def flush_item() -> None:
        nonlocal lead, lead_text, lead_of_item
        if not item:
            return
        body = _clean(" ".join(item), titles)
        item.clear()
        if body.endswith(":"):  # an item that introduces the list or table after it
            lead_text = body[:-1].strip()
            lead = lead_text if len(lead_text) <= MAX_CONTEXT_CHARS else ""
            lead_of_item = True
            return
        context = lead or heading_context(current if depth > 1 else "")
        labelled = _ITEM_LABEL.match(body)
        add(
            with_context(context, body),
            "item",
            label=labelled.group(1) if labelled else "",
            bare=body,
            around=context,
            step=numbered[0] or bool(HOWTO_HEADING.match(current)),
        )

    lines = text.splitlines()
    for index, raw in enumerate(lines):
        line = _ESCAPED_MARKER.sub("", raw.rstrip().lstrip())
        line = raw[: len(raw) - len(raw.lstrip())] + line  # keep the indentation
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(("```", "~~~")):
                # "3. Check the reset counter:" and its command are one item of the list (a
                # step of its procedure), in the list's context; the item introduced this
                # code block, not the items after it (a paragraph's "If a key leaks:" goes
                # on to the notes after its commands)
                step_lead = lead if lead_of_item else ""
                if lead_of_item:
                    lead = lead_text = ""
                for code_line in fence:
                    body, _, comment = code_line.partition(" #")
                    body = body.strip()
                    if len(body) < 8 or body.startswith(("#", "//")):
                        continue
                    quoted = f"{body} ({comment.strip()})" if comment.strip() else body
                    if step_lead:
                        around = heading_context(current if depth > 1 else "")
                        step = f"{step_lead}: {quoted}"
                        add(
                            with_context(around, step),
                            "item",
                            bare=step,
                            around=around,
                            step=numbered[0] or bool(HOWTO_HEADING.match(current)),
                        )
                        continue
                    context = lead or heading_context(current)
                    add(with_context(context, quoted), "code", bare=quoted)
                fence = None
            else:
                fence.append(stripped)
            continue
        if stripped.startswith(("```", "~~~")):
            flush_paragraph()
            flush_item()
            fence = []
            continue
        heading = _HEADING.match(stripped)
        if heading:
            flush_paragraph()
            flush_item()
            depth = len(heading.group(1))
            current = _clean(heading.group(2), titles)
            lead = lead_text = announced = ""
            header = None
            continue
        if stripped.startswith("|"):
            flush_paragraph()
            flush_item()
            if _TABLE_SEPARATOR.match(stripped.strip("|").strip()):
                continue
            cells = [_clean(cell, titles) for cell in _cells(stripped)]
            if header is None:
                following = lines[index + 1].strip() if index + 1 < len(lines) else ""
                if _TABLE_SEPARATOR.match(following.strip("|").strip()):
                    header = cells
                    # a table of labelled values: its value column's name says nothing
                    labelled_values = len(cells) == 2 and words.terms(cells[1]) <= _GENERIC_COLUMNS
                    continue
                # rows of a table whose header is in the previous chunk: no column names
                header = [""] * len(cells)
                labelled_values = False
            parts = []
            for name, value in zip(header[1:], cells[1:], strict=False):
                if not value or value in {"—", "-", "n/a"}:
                    continue
                value = "yes" if value in {"✓", "✔"} else value
                parts.append(f"{name}: {value}" if name else value)
            first = cells[0] if cells else ""
            if header and header[0] and not parts:
                continue
            if labelled_values and len(cells) == 2 and parts:
                # "Approved: 12 August 2025", not "Approved — Value: 12 August 2025"
                row = f"{first}: {cells[1]}"
            else:
                row = f"{first} — {'; '.join(parts)}" if parts else first
            add(
                row,
                "row",
                # the first column's name ("Vendor") is matched, not quoted
                label=header[0] if header and header[0] else "",
            )
            continue
        header = None
        if not stripped:
            flush_paragraph()
            flush_item()
            continue
        if stripped in {"---", "***"}:
            continue
        stripped = _QUOTE_MARKER.sub("", stripped)
        marker = _LIST_MARKER.match(line)
        if marker:
            flush_paragraph()
            flush_item()
            numbered[0] = marker.group(0).strip()[:1].isdigit()
            item.append(_LIST_MARKER.sub("", stripped))
            continue
        if item and (raw.startswith((" ", "\t"))):
            item.append(stripped)  # a list item's continuation line
            continue
        flush_item()
        paragraph.append(stripped)
    flush_paragraph()
    flush_item()
    units = _questions_are_no_steps(units)
    # A chunk window can start or stop mid-sentence (its overlap begins at a word, a hard cut
    # ends at one): those fragments misquote; the neighbouring chunk holds them whole.
    first_line = text.lstrip().split("\n", 1)[0]
    if units and units[0].kind == "sentence" and _opens_mid_text(first_line, continues):
        units.pop(0)
    if (
        units
        and not text.endswith("\n")
        and not re.search(r"[.!?:;)\]`|*]\s*$", text)
        and not _dropped_fragment(text, units[-1])
    ):
        last = units.pop()
        whole = _complete_clauses(last.text)
        if whole:
            units.append(replace(last, text=whole, match=_complete_clauses(last.words) or whole))
    return units


# A paragraph opening with a bold title of at most five words ("**8. Access reviews.**")
_BOLD_TITLE = re.compile(r"\s*\*\*((?:\d+[.)]\s*)?(?:[^*\s]+\s+){0,4}[^*\s]+?\.?)\*\*\s+\S")


def _questions_are_no_steps(units: list[Unit]) -> list[Unit]:
    """A numbered list whose items are mostly questions ("Open questions: 1. Should ...?")
    is open points or an agenda, not a procedure's steps: none of its items is a step."""
    asking: dict[int, list[bool]] = {}
    for unit in units:
        if unit.step:
            asking.setdefault(unit.group, []).append(asks(unit))
    questions = {group for group, asked in asking.items() if 2 * sum(asked) >= len(asked)}
    return [replace(u, step=False) if u.step and u.group in questions else u for u in units]


def opens_inside_a_list(text: str) -> bool:
    """A continuing chunk opens with items or rows of a list or table (in its first block,
    perhaps after the tail of an item) that nothing in it introduces: their lead-in or header
    is in the chunk before."""
    first_block = text.lstrip("\n").split("\n\n", 1)[0]
    return any(
        unit.kind in ("item", "row") and not unit.context
        for unit in split_units(first_block, continues=True)
    )


def _opens_mid_text(first_line: str, continues: bool) -> bool:
    """A chunk's first line is a fragment: it starts lowercase, or (in a continuing chunk)
    closes a bracket or code span it never opened."""
    if first_line[:1].islower():
        return True
    head = _SENTENCE_END.split(first_line, 1)[0]
    unbalanced = head.count(")") > head.count("(") or head.count("`") % 2 == 1
    return continues and unbalanced


def _dropped_fragment(text: str, last: Unit) -> bool:
    """The chunk's cut-off end is not the last unit's: it was too short to be a unit ("5.
    Anything that"), and the unit before it is whole."""
    tail = re.findall(r"\w+", text.rstrip().rpartition("\n")[2])
    return not tail or re.findall(r"\w+", last.text)[-1:] != tail[-1:]


def _complete_clauses(text: str) -> str:
    """A cut-off unit up to its last complete clause, or "" when too little of it is left."""
    cut = max(text.rfind(mark) for mark in (" (", "; ", ", ", " — "))
    kept = text[:cut].rstrip() if cut > 0 else ""
    return kept if len(kept.split()) >= MIN_CLAUSE_WORDS else ""
