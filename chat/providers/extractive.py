"""Offline, deterministic answers quoted from the units of the sources that state the fact.

A unit is what a reader can quote on its own: a sentence of a paragraph, a list item (with
the heading or lead-in it sits under), a table row (with its column headers), or, for
how-to and configuration questions, a line of a code block. Units are scored by what the
question asks (a number, a duration, a name, a date, a decision, a yes/no, a reason), the
words and identifiers they share with it, their meaning (the knowledge base's embedder),
and their source's rank and curation status. The best unit leads the answer.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from chat.prompt import NO_GROUNDED_ANSWER, Prompt, PromptSource
from chat.providers.base import ProviderAnswer
from kb.markup import to_prose
from kb.models import STALE_STATUSES, CanonicalStatus, CanonicalType

MAX_SENTENCES = 3
MIN_SENTENCES = 2
MAX_PER_SOURCE = 2
MAX_SOURCES = 3
MAX_SENTENCE_CHARS = 400
MAX_REJECTED_WARNINGS = 2
MAX_CONTEXT_CHARS = 90
COUNT_BONUS = 0.8  # "6 nodes" for "how many nodes"
REASON_SECTION_BONUS = 0.5  # a "Root causes" / "Why we rejected it" section holds the reasons
LABEL_BONUS = 0.3  # "Retries: ..." for "how are deliveries retried"
MIN_CLAUSE_WORDS = 6  # a cut-off unit kept up to its last clause must still say something
# Code lines are quoted for how-to questions (the command) and numbers (a configured value).
CODE_KINDS = frozenset({"howto", "number", "duration"})
# A rejected approach is warned about when its subject is named in the question, or when it is
# this close in meaning to the question (cosine): otherwise it is someone else's topic.
REJECTED_WARNING_COSINE = 0.55
logger = logging.getLogger(__name__)

STOPWORDS = frozenset(
    """a an and are as at be by can did do does for from how i if in into is it its me my of on
    or our should so than that the their them then there these they this to was we were what
    when where which who why will with you your about after before use used using don t not
    any all also have has had get got need want would could may might must""".split()
)
_WORD = re.compile(r"[a-z0-9][a-z0-9_\-./]*[a-z0-9]|[a-z0-9]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[`*])")
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_QUOTE_MARKER = re.compile(r"^\s*>\s?")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}")
_IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)+")
_ALTERNATIVES = re.compile(r"\b(alternatives?|options? considered|rejected|not chosen)\b", re.I)
_NOT_CHOSEN = re.compile(r"\b(rejected|not chosen|deferred)\W*$", re.IGNORECASE)
_ASKS_ALTERNATIVES = re.compile(
    r"\b(not|n't|alternatives?|reject\w*|instead|consider\w*|why)\b", re.IGNORECASE
)
_DECIDES = re.compile(r"\b(decide\w*|decision|chose|chosen|choose|standard\w*)\b", re.I)
# "how many" asks for a number; "many" is not a word the answer has to share
_QUESTION_WORDS = re.compile(
    r"\bhow (long|many|much|often|quickly|fast|soon|big|large)\b|\bwhat happens\b", re.I
)
_DANGLING = re.compile(r"^(it|this|that|these|they|those|he|she)\b", re.IGNORECASE)

# What a question asks for, and what a unit that answers it looks like.
_NUMBER = re.compile(r"\d")
# "how many delivery attempts": the counted noun, answered by "8 attempts" / "6 nodes"
_COUNTED = re.compile(r"\bhow many ([a-z][a-z-]*(?: [a-z][a-z-]*)?)", re.IGNORECASE)
_COUNT = re.compile(r"\d[\d,.]*\s*(?:x|×)?\s*([A-Za-z][A-Za-z-]*)")
# an item that defines something: a short label, then a colon ("Retries: exponential ...")
_ITEM_LABEL = re.compile(r"^([^:;.,()]{2,40}):\s")
_DURATION = re.compile(
    r"\b\d[\d.,]*\s*(?:[–-]\s*\d+\s*)?(?:ms|s|sec|seconds?|mins?|minutes?|h|hours?|d|days?|"
    r"weeks?|months?|years?)\b|\b\d+[smhd]\b|\b(?:hourly|daily|weekly|monthly|yearly|annual)\b",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b|\b(?:January|February|March|April|May|June|July|"
    r"August|September|October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|"
    r"Saturday|Sunday)\b"
)
_PERSON = re.compile(r"\b[A-Z][a-z]+ [A-Z][a-z]+(?:\s*\(|,|$|\s+[a-z(])")
_MODAL = re.compile(
    r"\b(never|must|must not|do not|don't|does not|not|no|only|forbidden|banned|allowed|"
    r"required|requires|rejected|cannot|can't|may|should)\b",
    re.IGNORECASE,
)
_REASON = re.compile(r"\b(because|since|so that|due to|reason|rejected|no |without)\b", re.I)
_REASON_SECTION = re.compile(r"\b(causes?|why|reasons?|rationale|rejected)\b", re.IGNORECASE)
_ABOUT_INCIDENTS = re.compile(
    r"\b(incident|outage|postmortem|post-mortem|caused|happened|went wrong|sev\d?)\b", re.I
)
_HOW_TO = re.compile(
    r"^\s*(how (do|can|should) (i|we|you)|how to)\b|\b(command|run|configure|set up|rotate)\b",
    re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(old|older|previous|previously|former|formerly|original|originally|used to|legacy|"
    r"were|history|historical|deprecated|superseded|archived|before)\b",
    re.IGNORECASE,
)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word.rstrip("e") or word


def terms(text: str) -> set[str]:
    """Content-word stems of `text` (lowercased, stopwords dropped); compounds add their parts."""
    out: set[str] = set()
    for word in _WORD.findall(text.lower()):
        parts = [word, *re.split(r"[-_./]", word)] if re.search(r"[-_./]", word) else [word]
        for part in parts:
            if part and part not in STOPWORDS and (len(part) > 1 or part.isdigit()):
                out.add(_stem(part))
    return out


def _matching(wanted: set[str], present: set[str]) -> set[str]:
    """The wanted terms present, also as a prefix of a longer form (sign ~ signature)."""
    found = wanted & present
    for term in wanted - found:
        if len(term) >= 4 and any(
            len(other) >= 4 and (other.startswith(term) or term.startswith(other))
            for other in present
        ):
            found.add(term)
    return found


# "what lag / which port / what timeout": nouns that name a quantity ask for a number
_QUANTITY_NOUNS = (
    r"\b(number|limit|cap|threshold|size|lag|timeout|ttl|retention|rate|percentage|version|"
    r"port|count|price|cost|budget|capacity|quota|maximum|minimum|default)\b"
)


def question_kind(question: str) -> str:
    """What the question asks for: duration, number, date, person, reason, howto, yesno, what."""
    q = question.strip().lower()
    if re.search(r"\bhow (long|often|quickly|fast|soon)\b|\bhow much time\b|\bwithin\b", q):
        return "duration"
    if re.search(r"\bhow (many|much|big|large)\b", q) or re.search(_QUANTITY_NOUNS, q):
        return "number"
    if re.match(r"when\b", q) or re.search(r"\bwhat (date|time|day)\b", q):
        return "date"
    if re.match(r"who(m|se)?\b", q):
        return "person"
    if re.match(r"why\b", q) or re.match(r"what (caused|causes|led to|was the cause)", q):
        return "reason"
    if _HOW_TO.search(q):
        return "howto"
    if re.match(r"(can|may|should|is|are|do|does|did|must|will|could|would|has|have)\b", q):
        return "yesno"
    return "what"


@dataclass(frozen=True)
class Unit:
    """One quotable piece of a chunk, as prose, with the context that makes it readable."""

    text: str  # the quote, markup removed, with its context prefix when it is an item/row
    kind: str  # sentence | item | row | code
    section: str  # nearest heading
    position: int
    decision: bool = False  # a statement under a Decision heading, or a bold lead statement
    context: str = ""  # the lead-in it follows (matched, not quoted when long)
    alternative: bool = False  # an option that was considered and not chosen
    match: str = ""  # the text without the titles of the documents it links to
    label: str = ""  # what an item defines ("Retries" in "**Retries**: exponential backoff ...")

    @property
    def words(self) -> str:
        """What the question's words are matched against: a link to the outage postmortem
        does not make a sentence about the outage."""
        return self.match or self.text


def _clean(text: str, link_titles: dict[str, str]) -> str:
    return " ".join(to_prose(text, link_titles).split())


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _with_context(context: str, body: str) -> str:
    if not context or body.lower().startswith(context.lower()):
        return body
    return f"{context}: {body}"


def _heading_context(section: str) -> str:
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
) -> list[Unit]:
    """The quotable units of a markdown chunk (see the module docstring).

    `continues`: the chunk is not its document's first, so it may open with the previous
    chunk's last words (the overlap starts at any word): a leading fragment of a sentence
    is dropped, the previous chunk holds it whole.
    """
    titles = link_titles or {}
    linked_titles = sorted(set(titles.values()), key=len, reverse=True)
    units: list[Unit] = []
    paragraph: list[str] = []
    item: list[str] = []
    fence: list[str] | None = None
    header: list[str] | None = None
    lead = ""  # a short paragraph ending with ':' introduces the list/table/code after it
    lead_text = ""  # the same lead-in however long: matched against the question
    depth = 9
    current = section
    if _starts_inside_fence(text):
        fence = []  # the chunk window began inside a code block: its first fence closes it

    def add(body: str, kind: str, *, decision: bool = False, label: str = "") -> None:
        body = body.strip()
        if len(body.split()) < 3:
            return
        if len(body) > MAX_SENTENCE_CHARS:
            body = body[:MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + " …"
        is_decision = decision or current.lower().startswith("decision")
        alternative = bool(_ALTERNATIVES.search(current)) or bool(_NOT_CHOSEN.search(body[-40:]))
        context = lead_text if kind != "sentence" else ""
        match = body
        for title in linked_titles:
            match = match.replace(title, " ")
        units.append(
            Unit(body, kind, current, len(units), is_decision, context, alternative, match, label)
        )

    def flush_paragraph() -> None:
        nonlocal lead, lead_text
        if not paragraph:
            return
        raw = " ".join(paragraph)
        paragraph.clear()
        bold_lead = raw.lstrip().startswith("**")
        prose = _clean(raw, titles)
        sentences = [s.strip() for s in _SENTENCE_END.split(prose) if s.strip()]
        for index, clean in enumerate(sentences):
            if clean.endswith(":"):
                lead = clean[:-1] if len(clean) <= MAX_CONTEXT_CHARS else ""
                lead_text = clean[:-1]
                continue
            add(clean, "sentence", decision=bold_lead and index == 0)

    def flush_item() -> None:
        if not item:
            return
        body = _clean(" ".join(item), titles)
        item.clear()
        context = lead or _heading_context(current if depth > 1 else "")
        labelled = _ITEM_LABEL.match(body)
        add(_with_context(context, body), "item", label=labelled.group(1) if labelled else "")

    lines = text.splitlines()
    for index, raw in enumerate(lines):
        line = raw.rstrip()
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(("```", "~~~")):
                for code_line in fence:
                    body, _, comment = code_line.partition(" #")
                    body = body.strip()
                    if len(body) < 8 or body.startswith(("#", "//")):
                        continue
                    quoted = f"{body} ({comment.strip()})" if comment.strip() else body
                    context = lead or _heading_context(current)
                    add(_with_context(context, quoted), "code")
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
            lead = lead_text = ""
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
                    continue
                # rows of a table whose header is in the previous chunk: no column names
                header = [""] * len(cells)
            parts = []
            for name, value in zip(header[1:], cells[1:], strict=False):
                if not value or value in {"—", "-", "n/a"}:
                    continue
                value = "yes" if value in {"✓", "✔"} else value
                parts.append(f"{name}: {value}" if name else value)
            first = cells[0] if cells else ""
            if header and header[0] and not parts:
                continue
            add(f"{first} — {'; '.join(parts)}" if parts else first, "row")
            continue
        header = None
        if not stripped:
            flush_paragraph()
            flush_item()
            continue
        if stripped in {"---", "***"}:
            continue
        stripped = _QUOTE_MARKER.sub("", stripped)
        if _LIST_MARKER.match(line):
            flush_paragraph()
            flush_item()
            item.append(_LIST_MARKER.sub("", stripped))
            continue
        if item and (raw.startswith((" ", "\t"))):
            item.append(stripped)  # a list item's continuation line
            continue
        flush_item()
        paragraph.append(stripped)
    flush_paragraph()
    flush_item()
    # A chunk window can start or stop mid-sentence (its overlap begins at a word, a hard cut
    # ends at one): those fragments misquote; the neighbouring chunk holds them whole.
    first_line = text.lstrip().split("\n", 1)[0]
    if units and units[0].kind == "sentence" and _opens_mid_text(first_line, continues):
        units.pop(0)
    if units and not text.endswith("\n") and not re.search(r"[.!?:;)\]`|*]\s*$", text):
        last = units.pop()
        whole = _complete_clauses(last.text)
        if whole:
            units.append(replace(last, text=whole, match=_complete_clauses(last.words) or whole))
    return units


def _opens_mid_text(first_line: str, continues: bool) -> bool:
    """A chunk's first line is a fragment: it starts lowercase, or (in a continuing chunk)
    closes a bracket or code span it never opened."""
    if first_line[:1].islower():
        return True
    head = _SENTENCE_END.split(first_line, 1)[0]
    unbalanced = head.count(")") > head.count("(") or head.count("`") % 2 == 1
    return continues and unbalanced


def _complete_clauses(text: str) -> str:
    """A cut-off unit up to its last complete clause, or "" when too little of it is left."""
    cut = max(text.rfind(mark) for mark in (" (", "; ", ", ", " — "))
    kept = text[:cut].rstrip() if cut > 0 else ""
    return kept if len(kept.split()) >= MIN_CLAUSE_WORDS else ""


def split_sentences(text: str) -> list[str]:
    """Readable prose sentences of a markdown chunk: no headings, code, tables or markers."""
    return [u.text for u in split_units(text) if u.kind in ("sentence", "item")]


@dataclass(frozen=True)
class _Candidate:
    score: float
    overlap: int
    source: PromptSource
    unit: Unit

    @property
    def sentence(self) -> str:
        return self.unit.text


def _source_prior(source: PromptSource, *, asks_past: bool, about_incidents: bool = False) -> float:
    """Retrieval rank and curation status: the answer should lean on the best, current source."""
    hit = source.hit
    prior = 0.4 * max(0.0, min(hit.quality_score, 1.0)) + 0.3 / (1 + source.n)
    if source.block == "related":
        prior -= 0.3  # neighbours complete an answer; they rarely carry it
    if hit.canonical_type == CanonicalType.PROJECT_INDEX:
        prior -= 0.6  # index pages are lists of links, not answers
    if hit.canonical_type == CanonicalType.INCIDENT and not (asks_past or about_incidents):
        prior -= 0.2  # a postmortem tells what was true then, not how things are now
    status = hit.canonical_status
    if status == CanonicalStatus.ACCEPTED:
        prior += 0.2
    elif status in STALE_STATUSES:
        # a question about how things used to be may quote history (labelled as such)
        prior -= 0.15 if asks_past else 0.5
    return prior


def _kind_bonus(kind: str, unit: Unit, source: PromptSource) -> float:
    text = unit.text
    if kind == "duration":
        return 0.45 if _DURATION.search(text) else (0.1 if _NUMBER.search(text) else -0.1)
    if kind == "number":
        return 0.35 if _NUMBER.search(text) else -0.1
    if kind == "date":
        return 0.4 if _DATE.search(text) else -0.05
    if kind == "person":
        return 0.4 if _PERSON.search(text) else -0.1
    if kind == "reason":
        bonus = 0.15 if _REASON.search(text) else 0.0
        # a "Root causes" / "Why we rejected it" section is where the reasons are
        return bonus + (REASON_SECTION_BONUS if _REASON_SECTION.search(unit.section) else 0.0)
    if kind == "yesno":
        return 0.2 if _MODAL.search(text) else 0.0
    if kind in ("what", "howto"):
        decided = unit.decision and source.hit.canonical_type == CanonicalType.DECISION
        accepted = source.hit.canonical_status == CanonicalStatus.ACCEPTED
        return 0.3 if decided and accepted else 0.0
    return 0.0


def _count_bonus(counted: set[str], text: str) -> float:
    """A number followed by the noun a "how many" question counts is its direct answer."""
    if not counted:
        return 0.0
    found = {_stem(noun.lower()) for noun in _COUNT.findall(text)}
    return COUNT_BONUS if _matching(counted, found) else 0.0


def _cite(sentence: str, n: int) -> str:
    body = sentence.rstrip()
    end = "."
    if body and body[-1] in ".!?":
        end = body[-1]
        body = body[:-1].rstrip()
    return f"{body} [{n}]{end}"


def _named_identifiers(question: str) -> list[str]:
    """Identifiers the question names (ADR-0005, GW-4021, snake_case): quoted units must too."""
    found = []
    for token in _IDENTIFIER.findall(question):
        if any(ch.isdigit() for ch in token) or "_" in token or token.isupper():
            if not re.fullmatch(r"[\d.,/:-]+", token):
                found.append(token.lower())
    return found


def _identifier_bonus(identifiers: list[str], text: str, around: str) -> float:
    """A unit that names the question's identifier (most when it opens with it, as a table
    row or a definition does) beats one that merely sits under a heading naming it."""
    if not identifiers:
        return 0.0
    if any(text.startswith(i) or f"— {i}" in text[:60] for i in identifiers):
        return 0.9
    if any(i in text for i in identifiers):
        return 0.6
    return 0.3 if any(i in around for i in identifiers) else 0.0


def _subject_terms(title: str) -> set[str]:
    """What a rejected approach is about: the proper names in its title (Memcached, MongoDB)."""
    body = title.split(":", 1)[1] if ":" in title else title
    words = body.split()
    names = [w for w in words[1:] if w[:1].isupper() or any(ch.isdigit() for ch in w)]
    return terms(" ".join(names))


class ExtractiveProvider:
    """Quotes the 2-3 units that best answer the question, each with its source number."""

    name = "extractive"
    model = "extractive-v2"
    supports_streaming = False

    def __init__(self, *, use_embedder: bool = True, embed_units: int = 40) -> None:
        self.use_embedder = use_embedder and embed_units > 0
        self.embed_units = embed_units

    def answer(self, prompt: Prompt) -> ProviderAnswer:
        question = prompt.question
        kind = question_kind(question)
        asks_past = bool(_PAST.search(question))
        asks_alternatives = bool(_ASKS_ALTERNATIVES.search(question))
        about_incidents = bool(_ABOUT_INCIDENTS.search(question))
        current_terms = terms(_QUESTION_WORDS.sub(" ", question))
        earlier_terms = terms(_QUESTION_WORDS.sub(" ", prompt.previous_question)) - current_terms
        identifiers = _named_identifiers(question)
        counted_match = _COUNTED.search(question)
        counted = terms(counted_match.group(1)) if counted_match else set()
        topical_rejected = self._topical_rejected(prompt, current_terms | earlier_terms)
        usable = [
            s
            for s in prompt.sources
            if s.block != "rejected" or s.hit.document_id in topical_rejected
        ]
        # index pages list links to answers; quote them only when nothing else was found
        substantive = [s for s in usable if s.hit.canonical_type != CanonicalType.PROJECT_INDEX]
        units = [
            (source, unit)
            for source in substantive or usable
            for unit in split_units(
                source.hit.text,
                section=source.hit.heading_path.split(" > ")[-1] if source.hit.heading_path else "",
                link_titles=prompt.link_titles,
                continues=source.hit.chunk_order > 0,
            )
            if unit.kind != "code" or kind in CODE_KINDS
        ] + self._title_units(prompt, substantive or usable, identifiers)
        if not units:
            return ProviderAnswer(text=NO_GROUNDED_ANSWER, model=self.model)
        weights = self._term_weights([u.words for _, u in units], current_terms | earlier_terms)
        whole = sum(weights.get(t, 0.0) for t in current_terms) + 0.5 * sum(
            weights.get(t, 0.0) for t in earlier_terms
        )
        candidates = []
        for source, unit in units:
            unit_terms = terms(unit.words) | terms(unit.section) | terms(unit.context)
            shared = _matching(current_terms, unit_terms)
            shared_earlier = _matching(earlier_terms, unit_terms)
            lexical = (
                sum(weights[t] for t in shared) + 0.5 * sum(weights[t] for t in shared_earlier)
            ) / max(whole, 1e-9)
            heading_terms = terms(f"{source.hit.title} {source.hit.heading_path}")
            lowered = unit.text.lower()
            around = f"{unit.section} {unit.context}".lower()
            score = (
                1.2 * lexical
                + 0.05 * len(current_terms & heading_terms)
                + _source_prior(source, asks_past=asks_past, about_incidents=about_incidents)
                + _kind_bonus(kind, unit, source)
                + _count_bonus(counted, unit.text)
                # an item labelled with the question's own word defines what it asks about
                + (LABEL_BONUS if _matching(current_terms, terms(unit.label)) else 0.0)
                + _identifier_bonus(identifiers, lowered, around)
                - (0.3 if unit.kind == "code" and kind != "howto" else 0.0)
                # an option that was not chosen answers "which" only when asked why not
                - (0.45 if unit.alternative and not asks_alternatives else 0.0)
                - 0.005 * unit.position
                # a sentence opening with a pronoun reads badly out of its paragraph
                - (0.15 if _DANGLING.match(unit.text) else 0.0)
            )
            candidates.append(_Candidate(score, len(shared | shared_earlier), source, unit))
        candidates = self._add_meaning(question, prompt.previous_question, candidates)
        picked = self._pick(candidates)
        if not picked:
            return ProviderAnswer(text=NO_GROUNDED_ANSWER, model=self.model)
        lines = [self._render(candidate) for candidate in picked]
        lines.extend(self._rejected_warnings(prompt, topical_rejected))
        return ProviderAnswer(
            text=" ".join(lines), model=self.model, usage={"sentences": len(picked)}
        )

    @staticmethod
    def _title_units(
        prompt: Prompt, sources: list[PromptSource], identifiers: list[str]
    ) -> list[tuple[PromptSource, Unit]]:
        """A decision's title states what was decided ("ADR-0005: Apache Kafka as the event
        backbone"): quotable when the question names the decision or asks what was decided."""
        asks = bool(_DECIDES.search(prompt.question)) or prompt.question.lower().startswith("which")
        units: list[tuple[PromptSource, Unit]] = []
        seen: set[int] = set()
        for source in sources:
            hit = source.hit
            if hit.canonical_type != CanonicalType.DECISION or hit.document_id in seen:
                continue
            seen.add(hit.document_id)
            named = any(i in hit.title.lower() for i in identifiers)
            label, _, statement = hit.title.partition(":")
            if not (named or asks) or not statement.strip():
                continue
            text = f"{label.strip()} decided: {statement.strip()}"
            units.append((source, Unit(text, "title", "", 0, decision=True)))
        return units

    @staticmethod
    def _term_weights(texts: list[str], wanted: set[str]) -> dict[str, float]:
        """IDF of each question term over the units: the specific words decide."""
        count = len(texts)
        frequency = dict.fromkeys(wanted, 0)
        for text in texts:
            for term in terms(text) & wanted:
                frequency[term] += 1
        return {t: math.log(1 + (count + 1) / (df + 0.5)) for t, df in frequency.items()}

    def _topical_rejected(self, prompt: Prompt, question_terms: set[str]) -> set[int]:
        """Rejected approaches the question is about: their subject is named, or very close."""
        topical: set[int] = set()
        for source in prompt.sources:
            if source.block != "rejected":
                continue
            hit = source.hit
            named = bool(_subject_terms(hit.title) & question_terms)
            close = hit.cosine is not None and hit.cosine >= REJECTED_WARNING_COSINE
            if named or close:
                topical.add(hit.document_id)
        return topical

    def _add_meaning(
        self, question: str, previous: str, candidates: list[_Candidate]
    ) -> list[_Candidate]:
        """Add 1.2 x cosine(question, unit) for the best lexical candidates."""
        if not self.use_embedder or not candidates:
            return candidates
        ranked = sorted(candidates, key=lambda c: -c.score)
        shortlist, rest = ranked[: self.embed_units], ranked[self.embed_units :]
        try:
            from kb.embeddings import get_embedder
            from kb.embeddings.cache import embed_query_cached, embed_texts_cached

            embedder = get_embedder()
            query = embed_query_cached(embedder, f"{previous} {question}".strip())
            vectors = embed_texts_cached(embedder, [c.sentence for c in shortlist])
        except Exception:  # noqa: BLE001 - meaning is a bonus; words alone still answer
            logger.warning("extractive provider: embedder unavailable, words only", exc_info=True)
            return candidates
        # Units outside the shortlist keep their score plus the shortlist's weakest meaning.
        meanings = [sum(a * b for a, b in zip(query, v, strict=False)) for v in vectors]
        floor = min(meanings, default=0.0)
        return [
            *(
                replace(c, score=c.score + 1.2 * m)
                for c, m in zip(shortlist, meanings, strict=True)
            ),
            *(replace(c, score=c.score + 1.2 * floor) for c in rest),
        ]

    def stream(self, prompt: Prompt) -> Iterator[str]:
        yield self.answer(prompt).text

    def _pick(self, candidates: list[_Candidate]) -> list[_Candidate]:
        ranked = sorted(
            candidates, key=lambda c: (-c.score, c.source.n, c.unit.position, c.unit.text)
        )
        picked: list[_Candidate] = []
        per_source: dict[int, int] = {}
        seen_terms: list[set[str]] = []
        for candidate in ranked:
            if len(picked) >= MAX_SENTENCES:
                break
            n = candidate.source.n
            if n not in per_source and len(per_source) >= MAX_SOURCES:
                continue
            if per_source.get(n, 0) >= MAX_PER_SOURCE:
                continue
            # Beyond the minimum, only units that share a word with the question help.
            if len(picked) >= MIN_SENTENCES and candidate.overlap == 0:
                continue
            unit_terms = terms(candidate.sentence)
            if any(len(unit_terms & t) >= 0.7 * max(len(unit_terms), 1) for t in seen_terms):
                continue  # the same statement again (a summary and its section)
            picked.append(candidate)
            seen_terms.append(unit_terms)
            per_source[n] = per_source.get(n, 0) + 1
        if not picked:
            return []
        # The best unit leads; the rest follow by source (stale ones last), in document order.
        lead, rest = picked[0], picked[1:]
        best: dict[int, float] = {}
        for candidate in rest:
            best.setdefault(candidate.source.n, candidate.score)
        rest.sort(
            key=lambda c: (
                c.source.hit.canonical_status in STALE_STATUSES,
                c.source.n != lead.source.n,
                -best[c.source.n],
                c.source.n,
                c.unit.position,
            )
        )
        return [lead, *rest]

    def _render(self, candidate: _Candidate) -> str:
        source = candidate.source
        status = source.hit.canonical_status
        if status in STALE_STATUSES:
            return _cite(f"{source.hit.title} ({status}) said: {candidate.sentence}", source.n)
        return _cite(candidate.sentence, source.n)

    def _rejected_warnings(self, prompt: Prompt, topical: set[int]) -> list[str]:
        warnings: list[str] = []
        seen_documents: set[int] = set()
        for source in prompt.sources:
            document_id = source.hit.document_id
            if source.block != "rejected" or document_id in seen_documents:
                continue
            if document_id not in topical:
                continue
            seen_documents.add(document_id)
            warnings.append(f"⚠ Note: {source.hit.title} was considered and rejected [{source.n}].")
            if len(warnings) >= MAX_REJECTED_WARNINGS:
                break
        return warnings
