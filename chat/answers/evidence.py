"""The evidence brief: what the sources say about one question, and which of them to trust.

Every answer provider receives the same brief. It names the unit that answers (from the most
trusted source that states it), the further units the answer needs (the rest of a list, the
second fact of a two-part question), other sources that state a different value for the same
thing (with their status), the supersede chain of the documents involved, and the rejected
approaches the question is about. When no unit carries what the question asks for about its
subject, the brief says so and the turn is refused.

The trust rules live here and nowhere else:

- an accepted canonical record > a record in review > an uncurated document (notes, blog
  posts, chat exports) or a draft > a superseded, deprecated or archived record (history
  only, never stated as current);
- a less trusted source that states another value is named as a disagreement, beside the
  trusted value, never instead of it.
"""

from __future__ import annotations

import bisect
import datetime as dt
import math
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from chat.answers import history
from chat.answers import values as vals
from chat.answers.question import (
    DATE,
    DURATION,
    HOWTO,
    KEEPING,
    LEAST,
    MOST,
    NUMBER,
    PERSON,
    REASON,
    WHAT,
    WHICH,
    YESNO,
    Question,
    names_excluded,
)
from chat.answers.scoring import (
    Scored,
    clause_of,
    context_terms,
    coverage,
    in_reason_section,
    is_step,
    names_in,
    names_present,
    record_terms,
    said_of_another,
    score_unit,
    term_weights,
    unit_terms,
    with_meaning,
)
from chat.answers.units import (
    HOWTO_HEADING,
    OWNERS,
    STATUS,
    Unit,
    asks,
    chat_message,
    heading_context,
    refers_back,
    reports_a_question,
    says_not,
    spelled_out,
    split_units,
    states_change,
)
from chat.prompt import PromptSource
from kb import words
from kb.models import STALE_STATUSES, CanonicalStatus
from kb.retrieval.types import SearchHit

# Trust tiers of a source.
TRUST_ACCEPTED = 3
TRUST_REVIEW = 2
TRUST_UNCURATED = 1  # notes, blog posts, chat exports, drafts
TRUST_HISTORY = 0  # superseded, deprecated, archived
CHAT_DISCOUNT = 0.5  # a chat message is trusted half a tier less than its source (said_trust)

# How far below the best unit a more trusted source's unit may score and still lead (per tier
# of trust between them when they state a value; see _trust_margin): the same statement from
# the record beats the meeting note that happened to match more words.
TRUST_MARGIN = 1.0
# A unit is about the same thing as the lead when it covers this share of what the lead does,
# or when the two units share this share of their own (IDF-weighted) words.
SAME_SUBJECT = 0.75
SAME_THING = 0.3
# A unit disagreeing with the lead states at least this share of what the lead does about the
# question (and is about the same thing: SAME_THING).
DISAGREE_COVERAGE = 0.5
CLOSE_THING = 0.5  # ...or says much the same about it in its own words
# Supporting quotes score this close to the lead, and repeat less than this share of a
# quoted unit's words.
SUPPORT_MARGIN = 0.5
REPEATS = 0.7
# A date or a person asked of a decision: a unit saying it was decided (rejected, approved)
# leads, giving up this much score to one that only dates the matter or names another.
DECIDED_MARGIN = 0.5
# "who has to sign off X?", "who can approve it?": who may do it, not who did
_WHO_MAY = re.compile(r"\b(?:has|have|need|needs)\s+to\b|\b(?:must|should|can|may|could)\b", re.I)
# A how-to answer led by prose shows the command that scores this close to it.
COMMAND_MARGIN = 0.5
# A question asking for several things is answered by a list scoring this close to the best.
LIST_MARGIN = 0.9
# Lead and disagreements are looked for among this many best units.
MAX_CONTENDERS = 20
# The meaning of this many best-by-words units is judged by the embedder, on at most this
# many words of each (with its heading and lead-in).
MEANING_WORDS = 20
MEANING_SHORTLIST = 4
# Refusal: the best unit must state this share of the question's subject (IDF-weighted),
# or nearly as much with a meaning this close to the question.
# Records still being decided: quoted, with their status said.
UNDECIDED_STATUSES = frozenset({CanonicalStatus.DRAFT, CanonicalStatus.REVIEW})
MIN_COVERAGE = 0.65  # a question that asks for a particular kind of value
MIN_COVERAGE_OPEN = 0.4  # what / which / why / how / yes-no questions
MIN_COVERAGE_CLOSE = 0.3
CLOSE_MEANING = 0.7  # ...and a unit that says what is asked of a subject in other words
# A near-miss: a unit saying what is asked, but of another thing, means the question by this
# much more (cosine) than every unit about the thing asked, which then only share its words.
ANOTHER_THING_MEANING = 0.15
RELATION_SHARE = 0.3  # the verb of "who leads X" / "when did X kick in" is said other ways
# A list is quoted whole up to this many items; other answers use at most this many units.
MAX_LIST_ITEMS = 10
# A question names a record of a supersede chain when its title states this share of it.
TITLE_NAMES = 0.3
# The last paragraph of a chunk introduces the next chunk's table when it is this short.
MAX_LEAD_IN_CHARS = 400
# ...when the list's lead-in or heading states this share of the question.
LIST_INTRO = 0.5
MAX_SUPPORT = 2
# The answer leaves part of the question unstated when that part weighs this share of it.
UNSTATED_SHARE = 0.35
# A second fact (multi-hop) must cover this share of what the lead left out.
MIN_SECOND_HOP = 0.5
# A unit of another document than the lead's joins the answer (as support or as a second
# fact) when it states this many of the question's words, or (a second fact) a name or code
# the answer states: one shared word is a near miss ("Nokia's headquarters" for the Danube
# Commission's)
MIN_OTHER_DOCUMENT_TERMS = 2
# A rejected approach is warned about when its subject is named, or it is this close (cosine).
REJECTED_WARNING_COSINE = 0.55

_NEGATIVE = re.compile(
    r"\b(never|not|no|only|must not|cannot|can't|mustn't|may not|forbidden|prohibited|"
    r"banned|no exceptions|nobody|no one)\b",
    re.I,
)
_POSITIVE = re.compile(r"\b(can|may|allowed|permitted|fine|ok|okay|is allowed|are allowed)\b", re.I)


@dataclass(frozen=True, kw_only=True)
class DocumentRef:
    """A document of the supersede chain, as the reader may see it."""

    document_id: int
    title: str
    slug: str
    status: str | None
    changed: dt.date | None = None  # when its status last changed (or it was last updated)
    since: dt.date | None = None  # when it came into force (chat.answers.history)


@dataclass(frozen=True, kw_only=True)
class SupersedeLink:
    older: DocumentRef
    newer: DocumentRef


@dataclass(frozen=True, kw_only=True)
class Disagreement:
    """A less trusted source stating another value for what the trusted unit states."""

    trusted: Scored
    other: Scored
    trusted_value: str
    other_value: str


@dataclass(frozen=True, kw_only=True)
class EvidenceBrief:
    """What the answer rests on (see the module docstring)."""

    question: Question
    answerable: bool
    lead: Scored | None = None
    listed: tuple[Scored, ...] = ()  # the rest of the lead's list or table, when it answers
    # the lead answers as an item of its list (with the list's lead-in), even when no other
    # item holds what the question asks for
    as_list: bool = False
    support: tuple[Scored, ...] = ()  # further units the answer needs (a second fact)
    disagreements: tuple[Disagreement, ...] = ()
    chain: tuple[SupersedeLink, ...] = ()
    replaced_by: DocumentRef | None = None  # the lead's document was superseded by this one
    # ...which was superseded in turn: the record at the end of the chain (None: it is current)
    current: DocumentRef | None = None
    predecessor: DocumentRef | None = None  # asked about the past: what the lead replaced
    # asked about a date ("in March 2024"): the record of the chain in force then, and the
    # one that replaced it (None: still in force)
    in_force: DocumentRef | None = None
    in_force_next: DocumentRef | None = None
    # asked when something was left behind ("when did we move off X?"): X and its successor
    moved_off: SupersedeLink | None = None
    rejected: tuple[PromptSource, ...] = ()
    verdict: str = ""  # "yes" / "no" for a question that compares two values
    # a question that compares: whether its evidence states what was measured (the outage's
    # duration), whatever it holds it against
    measured: bool = False
    # words of the question the lead leaves unstated and no other source states: worth a
    # second retrieval ("" when the answer is whole)
    unstated: str = ""
    # a superseded lead: the best unit of the record that replaced it, of the record in force
    # now (when that was replaced in turn), and the sentence of those records dating when the
    # old one goes ("Aquanet 6 will be switched off on 31 July 2026")
    successor: Scored | None = None
    current_unit: Scored | None = None
    when_it_goes: Scored | None = None
    # an undecided lead asked whether it is in force yet: the sentence saying what comes next
    next_step: Scored | None = None
    ranked: tuple[Scored, ...] = field(default=(), repr=False)
    refusal: str = ""  # why it is not answerable

    def as_text(self) -> str:
        """The brief as the "## Evidence brief" section of an LLM provider's prompt."""
        lines = ["## Evidence brief"]
        if self.lead is not None:
            lines.append(f"- Answer from [{self.lead.source.n}]: {_label(self.lead.source)}.")
        if self.listed:
            numbers = sorted({s.source.n for s in self.listed})
            lines.append(
                f"- The answer is the whole list in {', '.join(f'[{n}]' for n in numbers)}."
            )
        for extra in self.support:
            lines.append(f"- Also needed: [{extra.source.n}] {_label(extra.source)}.")
        if self.verdict:
            lines.append(f"- The comparison the question asks about comes out: {self.verdict}.")
        for d in self.disagreements:
            lines.append(
                f"- Disagreement: [{d.other.source.n}] {_label(d.other.source)} says "
                f"{d.other_value or 'otherwise'}; the trusted source [{d.trusted.source.n}] says "
                f"{d.trusted_value or 'the opposite'}. State the trusted value; name the other."
            )
        for link in self.chain:
            when = f", {link.newer.changed.isoformat()}" if link.newer.changed else ""
            lines.append(
                f"- Supersede chain: {link.older.title} ({link.older.status}) was replaced by "
                f"{link.newer.title} ({link.newer.status}{when}). The older one is history."
            )
        if self.in_force is not None and self.question.as_of is not None:
            until = (
                f" until {self.in_force_next.title} replaced it"
                if self.in_force_next is not None
                else ", and still is"
            )
            lines.append(
                f"- On {self.question.as_of.text} the record in force was "
                f"{self.in_force.title}{until}. Answer for that time."
            )
        if self.when_it_goes is not None:
            lines.append(
                f"- [{self.when_it_goes.source.n}] says when the replaced one goes: say so."
            )
        if self.next_step is not None:
            lines.append(
                f"- Not in force yet: [{self.next_step.source.n}] says what comes next for it."
            )
        for source in self.rejected:
            lines.append(
                f"- Rejected approach [{source.n}] {source.hit.title}: warn, never propose."
            )
        return "\n".join(lines)

    def best_unit_of(self, document_id: int) -> Scored | None:
        """The document's best-ranked unit."""
        return _first_of(document_id, self.ranked)

    @property
    def current_sources(self) -> tuple[PromptSource, ...]:
        """The accepted canonical sources the answer uses."""
        used = [s.source for s in (self.lead, *self.listed, *self.support) if s is not None]
        return tuple(s for s in used if trust(s) == TRUST_ACCEPTED)


def trust(source: PromptSource) -> int:
    """The trust tier of a source (see the module docstring)."""
    status = source.hit.canonical_status
    if status in STALE_STATUSES:
        return TRUST_HISTORY
    if not source.hit.canonical_type:
        return TRUST_UNCURATED
    if status == CanonicalStatus.ACCEPTED:
        return TRUST_ACCEPTED
    if status == CanonicalStatus.REVIEW:
        return TRUST_REVIEW
    return TRUST_UNCURATED


def said_trust(scored: Scored) -> float:
    """The trust of what a unit says: its source's tier, less CHAT_DISCOUNT for a message
    typed in a chat. Neither a chat export nor an uploaded procedure is a curated record, but
    a chat line does not stand level with a written procedure."""
    return trust(scored.source) - (CHAT_DISCOUNT if chat_message(scored.unit) else 0.0)


def _label(source: PromptSource) -> str:
    hit = source.hit
    if hit.canonical_type:
        return f"{hit.title} ({hit.canonical_status or 'no status'} {hit.canonical_type})"
    return f"{hit.title} (uncurated document)"


def _names_rejected(title: str, terms: frozenset[str]) -> bool:
    """The question names what a rejected approach is about (a name or code of its title)."""
    names = [w for w in title.split()[1:] if w[:1].isupper() or any(c.isdigit() for c in w)]
    return bool(words.matching(words.terms(" ".join(names)), terms)) if names else False


def _topical_rejected(sources: Sequence[PromptSource], terms: frozenset[str]) -> set[int]:
    """Rejected approaches the question is about: their subject is named, or very close."""
    return {
        source.hit.document_id
        for source in sources
        if source.block == "rejected"
        and (
            _names_rejected(source.hit.title, terms)
            or (source.hit.cosine is not None and source.hit.cosine >= REJECTED_WARNING_COSINE)
        )
    }


OPENING_CHARS = 600  # a document's opening paragraph: a few sentences, not a section
# A list of names: capitalised runs joined by commas and "and" / "or" ("Kestle Moor, Ambrook
# and Fenwick Springs WTW").
_CAPITALISED_RUN = r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*"
_NAME_LIST = re.compile(
    rf"{_CAPITALISED_RUN}(?:,\s+{_CAPITALISED_RUN})*,?\s+(?:and|or)\s+{_CAPITALISED_RUN}"
    rf"|{_CAPITALISED_RUN}(?:,\s+{_CAPITALISED_RUN})+"
)


def _with_openings(
    units: list[tuple[PromptSource, Unit]],
) -> list[tuple[PromptSource, Unit]]:
    """The units with their sources told the names their document's opening paragraph lists,
    where a source of the answer holds it (the sentences and table rows of the first section
    of its first chunk, under its title before any other heading: "Applies to | Brekken
    Ridge, Sollia Heights and Carn Dubh"). A document that opens by listing the
    places or things it applies to covers each of them in all its parts: a row of its table
    need not repeat the sites. A name its opening only mentions ("until the Quebec Bridge
    was completed") is not what it covers."""
    firsts: dict[int, str] = {}
    openings: dict[int, list[str]] = {}
    for source, unit in units:
        if source.hit.chunk_order != 0 or source.block == "rejected":
            continue
        first = firsts.setdefault(source.hit.document_id, unit.section)
        if unit.section == first and unit.kind in ("sentence", "row"):
            openings.setdefault(source.hit.document_id, []).append(unit.text)
    covers = {
        document: " ".join(m.group(0) for m in _NAME_LIST.finditer(" ".join(texts)[:OPENING_CHARS]))
        for document, texts in openings.items()
    }
    covers = {document: listed for document, listed in covers.items() if listed}
    if not covers:
        return units
    sources = {s.n: s for s, _ in units if s.hit.document_id in covers}
    told = {n: replace(s, covers=covers[s.hit.document_id]) for n, s in sources.items()}
    return [(told.get(s.n, s), u) for s, u in units]


def _units(
    sources: Sequence[PromptSource], link_titles: dict[str, str], question: Question
) -> list[tuple[PromptSource, Unit]]:
    code_kinds = {HOWTO, NUMBER, DURATION}
    by_position = {(s.hit.document_id, s.hit.chunk_order): s.hit for s in sources}
    split: dict[tuple[int, int], list[Unit]] = {}
    for source in sources:
        hit = source.hit
        before = by_position.get((hit.document_id, hit.chunk_order - 1))
        preceding = ""
        if before is not None and before.heading_path == hit.heading_path:
            preceding = _lead_in_at_end(before, link_titles)
        units = split_units(
            hit.text,
            section=hit.heading_path.split(" > ")[-1] if hit.heading_path else "",
            link_titles=link_titles,
            continues=hit.chunk_order > 0,
            preceding=preceding,
        )
        defined = words.acronyms(f"{hit.title}\n{hit.heading_path}\n{hit.text}")
        split[(hit.document_id, hit.chunk_order)] = spelled_out(units, defined)
    out: list[tuple[PromptSource, Unit]] = []
    for source in sources:
        hit = source.hit
        # the chunk overlap repeats the end of the chunk before without the lead-in it has
        # there: quoted as there ("Conditionally required: ..."), not under the heading
        earlier = {
            _said_text(unit): unit
            for unit in split.get((hit.document_id, hit.chunk_order - 1), ())
            if unit.kind in ("item", "row")
        }
        for unit in split[(hit.document_id, hit.chunk_order)]:
            there = earlier.get(_said_text(unit)) if unit.kind in ("item", "row") else None
            if there is not None and _under_heading(unit) and not _under_heading(there):
                unit = replace(unit, text=there.text, context=there.context, match=there.match)
            if unit.kind != "code" or question.kind in code_kinds:
                out.append((source, unit))
    # A question about who owns something: each document's curated owners say it of the
    # document ("who owns the logging standard?"), once per document.
    if words.matching(question.terms | question.relation, _OWNER):
        owned: set[int] = set()
        for source in sources:
            hit = source.hit
            if hit.owners and hit.document_id not in owned and source.block != "rejected":
                owned.add(hit.document_id)
                owners = ", ".join(hit.owners)
                text = f"{hit.title} is owned by {owners}"
                out.append((source, Unit(text, OWNERS, "", 0, bare=owners)))
    # A question about a record's status ("is the rate limiting ADR accepted?"): each
    # record's curated status says it of the record, once per record, and says which status
    # it is not when the question asks another.
    asked_status = words.matching(question.terms, _STATUS_TERMS)
    if (question.kind == YESNO and asked_status) or (
        question.kind in (WHAT, WHICH) and _STATUS_WORD <= asked_status
    ):
        stated: set[int] = set()
        for source in sources:
            hit = source.hit
            status = hit.canonical_status
            if not status or hit.document_id in stated or source.block == "rejected":
                continue
            stated.add(hit.document_id)
            # (a status word of the record's own title names the record, it asks nothing)
            asked = sorted(
                _STATUS_OF[t] for t in asked_status - words.terms(hit.title) if t in _STATUS_OF
            )
            text = f"{hit.title} is {_STATUS_PHRASE.get(status, status)}"
            if asked and status not in asked:
                text += ", not " + " or ".join(_STATUS_PHRASE.get(a, a) for a in asked)
            out.append((source, Unit(text, STATUS, "Status", 0, bare=status)))
    # A document the question names (by its id or slug) states its subject in its title
    # ("What did ADR-0005 decide?"): the title is quotable too, once per document.
    # Codes name a document by its title or slug; a word in capitals (API) does not, and a
    # hyphenated word (on-call, follow-up) only as the document's whole slug.
    codes = {token.lower() for token in question.identifiers if re.search(r"[\d_.]", token)}
    slugs = {token.lower() for token in question.identifiers if "-" in token}
    titled: set[int] = set()
    for source in sources:
        hit = source.hit
        title_words = {t.lower() for t in re.findall(r"[\w.-]+", hit.title)}
        if hit.document_id in titled or not (
            codes & (title_words | {hit.slug.lower()}) or hit.slug.lower() in slugs
        ):
            continue
        titled.add(hit.document_id)
        out.append((source, Unit(hit.title, "title", "", 0, match=hit.title)))
    return out


_OWNER = words.terms("owner")
_STATUS_OF = {next(iter(words.terms(status))): status for status in CanonicalStatus.values}
_STATUS_WORD = words.terms("status")  # "what is the status of ...": a what-question asks it so
_STATUS_TERMS = frozenset({*_STATUS_OF, *_STATUS_WORD})
_STATUS_PHRASE = {"review": "in review", "draft": "a draft"}


def _under_heading(unit: Unit) -> bool:
    """An item or row quoted under its section's heading: no lead-in of its own."""
    heading = heading_context(unit.section)
    return bool(heading) and unit.text.startswith(f"{heading}: ")


def _said_text(unit: Unit) -> str:
    """What a unit says, without the context prefix its chunk gave it."""
    return unit.bare or unit.text


def _meaning_text(unit: Unit) -> str:
    """What the embedder judges: the unit with its heading and lead-in, which say what it is
    about ("Weather limits", "Wind speeds are the 10-minute mean ...")."""
    parts = [unit.section, unit.context if unit.context not in unit.text else "", unit.text]
    text = " — ".join(part for part in parts if part)
    cut = " ".join(text.split()[:MEANING_WORDS])  # the embedder's time grows with length
    return cut


def _lead_in_at_end(hit: SearchHit, link_titles: dict[str, str]) -> str:
    """What introduces whatever the next chunk opens with: the lead-in of the list or table
    this chunk ends in, or its last paragraph of prose (when short)."""
    units = split_units(hit.text, link_titles=link_titles, continues=hit.chunk_order > 0)
    if units and units[-1].kind in ("item", "row") and units[-1].context:
        return units[-1].context
    paragraphs = [p.strip() for p in hit.text.split("\n\n") if p.strip()]
    last = paragraphs[-1] if paragraphs else ""
    item = _INTRODUCING_ITEM.fullmatch(last.splitlines()[-1].strip()) if last else None
    if item:
        return item.group(1)  # "- **Retention:**": the item introducing what follows
    if (
        last
        and not re.match(r"[|#`>*+-]|\d+[.)]\s", last)
        and not last[:1].islower()  # the tail of a sentence cut at the chunk's start
        and len(last) <= MAX_LEAD_IN_CHARS
    ):
        return last
    return ""


_INTRODUCING_ITEM = re.compile(r"(?:[-*+]|\d+[.)])\s+\**([^*:]{1,80}?)\**:\**")


def _polarity(text: str) -> int:
    if _NEGATIVE.search(text):
        return -1
    if _POSITIVE.search(text):
        return 1
    return 0


def opposite_rules(a: str, b: str) -> bool:
    """Whether two statements state a yes/no rule the opposite way ("only admins may" vs
    "editors can"): one restricts or forbids, the other allows."""
    mine, theirs = _polarity(a), _polarity(b)
    return bool(mine and theirs and mine != theirs)


# Values two sources can disagree on; names and codes differ for many other reasons.
COMPARABLE = frozenset({*vals.NUMERIC_KINDS, vals.DATE, vals.TIME})


def _comparable(scored: Scored, question: Question) -> list[vals.Value]:
    """The values a unit states that another source may contradict: the asked ones, when the
    question asks for a kind of value, else its amounts (a date tells when something
    happened; two records telling different events do not disagree). A bare number counts
    nothing ("Revision 4", "every 4"): it is held against another only when the question asks
    how many."""
    if scored.values:
        found = [v for v in scored.values if v.kind in COMPARABLE]
    else:
        found = [v for v in vals.values_in(scored.unit.text) if v.kind in vals.NUMERIC_KINDS]
    if vals.COUNT not in question.value_kinds:
        found = [v for v in found if v.kind != vals.COUNT or vals.counted_noun(v)]
    return found


def _same_count(a: vals.Value, b: vals.Value) -> bool:
    """Counts of the same thing ("seven steps" and "3 points" count different things, and a
    bare number may count anything), or values of another kind."""
    if a.kind != vals.COUNT:
        return True
    noun_a, noun_b = vals.counted_noun(a), vals.counted_noun(b)
    if not noun_a or not noun_b:
        return not noun_a and not noun_b
    return bool(words.matching(words.terms(noun_a), words.terms(noun_b)))


def different_value(
    mine: Sequence[vals.Value], theirs: Sequence[vals.Value]
) -> tuple[vals.Value, vals.Value] | None:
    """Same thing, different value: the first of `mine` (of a kind two sources can disagree
    on, COMPARABLE) that `theirs` states values of its kind for, none of them the same (35
    days against 14 days; not against 5 weeks), with the first of those; None when they agree
    or state no value of one kind. The chat's disagreements and the conflicts detector
    (chat.conflicts) both ask this."""
    for value in mine:
        if value.kind not in COMPARABLE:
            continue
        same_kind = [v for v in theirs if v.kind == value.kind and _same_count(value, v)]
        if same_kind and not any(vals.same_value(value, v) for v in same_kind):
            return value, same_kind[0]
    return None


def _different_value(lead: Scored, other: Scored, question: Question) -> tuple[str, str] | None:
    """(lead's value, other's value) when both state a value of one kind and they differ.
    Of a lead stating several values of one kind (a first response and a restore time, a
    before and an after), only the one whose clause names the question best is held
    against another source's, and none when that is a tie."""
    mine = _comparable(lead, question)
    text = lead.unit.text

    def named(value: vals.Value) -> int:
        return len(words.matching(question.terms, words.terms(clause_of(lead.unit, value))))

    def rivals(value: vals.Value) -> list[vals.Value]:
        return [
            w
            for w in mine
            if w.kind == value.kind
            and vals.recurs(text, w) == vals.recurs(text, value)  # how often is not how long
            and not vals.same_value(w, value)
        ]

    held = [v for v in mine if all(named(v) > named(w) for w in rivals(v))]
    pair = different_value(held, _comparable(other, question))
    return (pair[0].text, pair[1].text) if pair is not None else None


def _disagreements(
    question: Question,
    lead: Scored,
    ranked: Sequence[Scored],
    similar: Callable[[Scored, Scored], float],
    earlier: tuple[frozenset[str], dict[str, float]] = (frozenset(), {}),
) -> tuple[Disagreement, ...]:
    """Other documents that state another value (or the opposite rule) for the same thing.
    A follow-up's thing is the turn before's subject too (`earlier`: its terms and their
    weights): "when did it take effect?" of QP-05 is not disagreed with by QP-14's date."""
    earlier_terms, weights = earlier

    def of_earlier(s: Scored) -> float:
        return _covers(earlier_terms, weights, s)

    named = _own_names(question, lead)
    lead_trust = said_trust(lead)
    found: list[Disagreement] = []
    seen: set[int] = {lead.document_id}
    for other in ranked[:MAX_CONTENDERS]:
        if other.document_id in seen or said_trust(other) >= lead_trust:
            continue
        if other.source.block == "rejected":
            continue
        alike = similar(lead, other)
        if alike < SAME_THING or (
            other.coverage < DISAGREE_COVERAGE * lead.coverage and alike < CLOSE_THING
        ):
            continue  # not about the same thing
        if earlier_terms and of_earlier(other) < DISAGREE_COVERAGE * of_earlier(lead):
            continue  # not about the subject the conversation is on
        if named - _own_names(question, other):
            continue  # the lead names what the question names, this one does not
        pair = _different_value(lead, other, question)
        if (
            pair is None
            and question.kind == YESNO
            and opposite_rules(lead.unit.text, other.unit.text)
        ):
            pair = ("", "")
        if pair is not None:
            found.append(
                Disagreement(trusted=lead, other=other, trusted_value=pair[0], other_value=pair[1])
            )
            seen.add(other.document_id)
        if len(found) >= 2:
            break
    return tuple(found)


def _own_names(question: Question, scored: Scored) -> frozenset[str]:
    """The question's names a unit states itself, or under its heading: a meeting note's
    title and summary name everything that was discussed."""
    unit = scored.unit
    return names_in(question.names, f"{unit.text} {unit.section} {unit.context}")


def _trust_margin(best: Scored, trusted: Scored) -> float:
    """How much score a more trusted unit may give up and still lead: TRUST_MARGIN for each
    tier of trust between them when they state a value (the accepted standard's "every 2
    hours" over a newsletter's "every 3 hours" that shares more of the question's words),
    one TRUST_MARGIN otherwise (a sentence with no value is matched by its words alone)."""
    tiers = trust(trusted.source) - trust(best.source) if best.values else 1
    return TRUST_MARGIN * tiers


# The words that say a list is what something requires
_REQUIRED_WORDS = frozenset(
    words.terms("required requirement requirements must need needed prerequisite mandatory")
)


def _pick_lead(
    question: Question,
    ranked: Sequence[Scored],
    similar: Callable[[Scored, Scored], float],
    replaced: frozenset[int],
    weights: dict[str, float],
) -> Scored:
    """The best unit; but when a more trusted source states the same thing (the same subject,
    a value of the same kind) nearly as well, that source leads: the accepted runbook's value
    before the meeting note that happened to match more of the question's words."""
    if not question.asks_alternatives:
        # an option that was considered and not chosen never answers what is used
        chosen = [s for s in ranked if not s.unit.alternative]
        ranked = chosen or ranked
    # a unit that tells of the same question being asked restates it, it does not answer it
    stated = [s for s in ranked if not reports_a_question(s.unit)]
    ranked = stated or ranked
    if not (question.asks_past or question.leaving):
        # what a record replaced ("Replaces: Tracto MES") is its history, not what is used now
        present = [s for s in ranked if not _looks_back(s.unit)]
        ranked = present or ranked
    if not question.asks_past:
        # nor is what the sentence after it says no longer holds ("That exception no longer
        # exists"), even when the question says someone left
        present = [s for s in ranked if not s.unit.revoked]
        ranked = present or ranked
    everyone = ranked
    if question.names and question.specific:
        # the value asked for is that of what the question names ("when did it fly past
        # Neptune": not the dates of Jupiter and Saturn); a how-to's steps may name nothing
        naming = [s for s in ranked if names_present(question.names, s.source, s.unit)]
        ranked = naming or ranked
    best = ranked[0]
    if (
        (question.kind == DATE or (question.kind == PERSON and not _WHO_MAY.search(question.text)))
        and question.decides
        and not words.matching(question.relation, unit_terms(best.unit))
    ):
        # "when was the chloramine idea turned down?": the unit saying it was rejected (or
        # decided, approved) and when leads, not one dating when it was first considered;
        # "who knocked back the idea?": the one saying who rejected it, not another name
        saying = [
            s
            for s in ranked[:MAX_CONTENDERS]
            if s.values
            and s.score >= best.score - DECIDED_MARGIN
            and words.matching(question.relation, unit_terms(s.unit))
        ]
        best = saying[0] if saying else best
    if question.wants_list:
        # several things asked for: a list or table nearly as relevant answers, not a sentence
        # (and of two lists, the one whose lead-in or first column the question names)
        lists = [
            s
            for s in ranked[:MAX_CONTENDERS]
            if s.unit.group >= 0
            and s.score >= best.score - LIST_MARGIN
            and s.coverage >= SAME_SUBJECT * best.coverage
        ]
        # a table whose first column is named by the question ("vendors": "Vendor") lists them;
        # what something needs is the list said to be required ("Required before ...")
        lists.sort(
            key=lambda s: (
                not (
                    s.unit.kind == "row"
                    and words.matching(question.terms, words.terms(s.unit.label))
                ),
                not (
                    question.asks_requirements
                    and words.matching(
                        _REQUIRED_WORDS,
                        words.terms(f"{s.unit.section} {s.unit.context} {s.unit.intro}"),
                    )
                ),
            )
        )
        best = lists[0] if lists else best
    if question.asks_current and best.document_id in replaced:
        return best  # "are we still on X?": X's record, to say what replaced it
    if (
        question.kind == YESNO
        and question.asks_current
        and best.source.hit.canonical_type
        and best.source.hit.canonical_status in UNDECIDED_STATUSES
    ):
        # "is the 72 hour release live yet?": what a draft proposes is asked about; its record
        # says it is not decided yet and what holds until then, not an accepted record's line.
        # Where the question names a value, its unit stating that value leads (the proposal).
        stating = [
            s
            for s in ranked[:MAX_CONTENDERS]
            if s.document_id == best.document_id
            and any(
                vals.same_value(c, v) for c in question.checked for v in vals.values_in(s.unit.text)
            )
        ]
        return stating[0] if stating else best
    if question.specific and not best.values:
        # "how long was it down back in January?" wants the span, not a note of the outage
        with_value = [s for s in ranked[:MAX_CONTENDERS] if s.values]
        best = with_value[0] if with_value else best
    if (
        best.values
        and not question.proposal
        and best.source.block != "rejected"
        and _proposes(best)
    ):
        # a proposal states what holds today and what it proposes: a question that does not
        # ask about the proposal asks what holds ("Current arrangements: Allowance: £220"); a
        # rejected approach's record tells of the proposal it turned down, which holds nothing
        holding = [
            s
            for s in ranked[:MAX_CONTENDERS]
            if s.document_id == best.document_id
            and not _proposes(s)
            and _same_kind(best, s)
            and s.coverage >= SAME_SUBJECT * best.coverage
        ]
        best = holding[0] if holding else best
    if question.asks_past:
        # history questions quote the record of the time, or what a record says it replaced
        # ("what did we use before Fabrica?": "Replaces: Tracto MES")
        back = [
            s
            for s in ranked[:MAX_CONTENDERS]
            if _looks_back(s.unit)
            and s.score >= best.score - SUPPORT_MARGIN
            and (s.values or not question.specific)
        ]
        if back:
            return back[0]
        # ...or a curated record of that time (superseded since: accepted then) over a note or
        # post that mentions the old value ("Today Aurora keeps 1-second data for 13 months")
        then = [
            s
            for s in ranked[:MAX_CONTENDERS]
            if trust(best.source) == TRUST_UNCURATED
            and s.source.hit.canonical_type
            and trust(s.source) in (TRUST_HISTORY, TRUST_ACCEPTED)
            and s.source.block != "rejected"
            and (not best.values or _same_kind(best, s))
            and s.coverage >= SAME_SUBJECT * best.coverage
            and s.score >= best.score - TRUST_MARGIN * (TRUST_ACCEPTED - TRUST_UNCURATED)
        ]
        then.sort(key=lambda s: trust(s.source) != TRUST_HISTORY)  # the one replaced since
        return then[0] if then else best
    contenders = [
        s
        for s in ranked[:MAX_CONTENDERS]
        if trust(s.source) > trust(best.source)
        and s.source.block != "rejected"
        and s.coverage > 0  # it says something of what is asked, not only the same name
        and s.score >= best.score - _trust_margin(best, s)
        and (not best.values or _same_kind(best, s))
        # the same subject; with no value to compare, said much the same way (another
        # document's steps covering the question's words are another procedure), and for
        # a question that asks what something is, stating as much of it (not a sentence
        # that shares only its topic; a yes-no claim's words are the claimant's own); a
        # value or a yes-no claim said much the same way still states some of what is asked
        # (the climbing standard's "two people" does not stand in for a draft's rope-access
        # repair team, nor an SLA's "Owner: ..., Desk Lead" for the draft "leading-edge" one)
        and (
            (best.values and s.coverage >= SAME_SUBJECT * best.coverage)
            or (
                similar(best, s) >= SAME_THING
                and (
                    (
                        (best.values or question.kind == YESNO)
                        and s.coverage >= MIN_COVERAGE_CLOSE
                        and (
                            question.kind not in (DURATION, NUMBER)
                            or _its_document_states(s, best, question, ranked, weights)
                        )
                    )
                    or s.coverage >= SAME_SUBJECT * best.coverage
                )
            )
        )
        and (not question.wants_list or best.unit.group < 0 or s.unit.group >= 0)
    ]
    if not contenders and best.values and trust(best.source) == TRUST_UNCURATED:
        # a note's "the limit is 300 RLU" beside a standard's "The pass limit is 150 RLU":
        # another amount of the same measure, stated by a rule for every case where the
        # note names its own (the line, the allergen), and not for another named one
        contenders = [
            s
            for s in everyone[:MAX_CONTENDERS]
            if trust(s.source) > trust(best.source)
            and s.source.block != "rejected"
            and s.coverage >= MIN_COVERAGE_CLOSE
            and s.score >= best.score - _trust_margin(best, s)
            and _another_amount_of_the_same_measure(best, s)
            and not _names_another_code(question, s.unit)
            and not about_another(question, s)
        ]
    if not contenders:
        return best
    # the trusted unit most like the best one states what it states
    return max(contenders, key=lambda s: (trust(s.source), similar(best, s), s.score))


def _its_document_states(
    s: Scored,
    best: Scored,
    question: Question,
    ranked: Sequence[Scored],
    weights: dict[str, float],
) -> bool:
    """Whether the document of `s`, in what the evidence holds of it, states what `best` states
    of a question asking for a span or a number: all of its words but one at most, and most of
    their weight. (A note telling a story of who did what shares more of a yes/no or a who
    question's words than the record's rule on it does: those are not checked.) The metal
    detection standard whose line says "Every 2 hours" says "test" elsewhere, and a runbook
    titled "Portal database" lacks only the "db" of a note; a fleet standard renewing a towing
    course says nothing of the "blue hygiene card" that the only source of it names."""
    stated = words.matching(question.terms, _said_around(best))
    whole = sum(weights.get(t, 1.0) for t in stated)
    if whole <= 0:
        return True
    theirs = frozenset().union(*(_said_around(o) for o in ranked if o.document_id == s.document_id))
    held = words.matching(stated, theirs)
    return len(stated) - len(held) <= 1 and sum(weights.get(t, 1.0) for t in held) >= whole / 2


# What a proposal would change (its section, lead-in or sentence says it is proposed)
PROPOSING = words.terms("proposed proposal proposes")


def _proposes(scored: Scored) -> bool:
    unit = scored.unit
    return bool(PROPOSING & words.terms(f"{unit.section} {unit.context} {unit.text}"))


def _from_its_record(
    question: Question, lead: Scored, answering: Sequence[Scored], weights: dict[str, float]
) -> Scored | None:
    """The lead's value stated again in the record the question names ("how many properties
    lost water in the Carn Hill incident?": a name of the question in its title, and its title
    and type cover the question), as trusted as the lead's, when the lead's own record is not
    named: that unit answers (the incident's record, not a runbook's line recalling it). Where
    the record does not state the lead's value, its own value of the kind asked answers."""
    keys = {v.key for v in lead.values}
    if not keys:
        return None

    def named(s: Scored) -> float:
        return coverage(question.terms, weights, record_terms(s.source), frozenset())

    asked = _asked_of_names(question)

    def by_name(s: Scored) -> bool:
        # a name of the question is in the record's title, and another word of the question
        # in its title or type: "the Carn Hill incident", not only a site many records name
        own = record_terms(s.source)
        return any(words.terms(name) <= own for name in question.names) and bool(
            words.matching(asked, own)
        )

    if by_name(lead):
        return None
    same = [
        s
        for s in answering[:MAX_CONTENDERS]
        if s.document_id != lead.document_id
        and trust(s.source) >= trust(lead.source)
        and keys & {v.key for v in s.values}
        and by_name(s)
    ]
    if not same and question.specific:
        # ...or a value of the kind asked that the named record states of what the question
        # asks at least as fully as the lead ("how long was SF-2 down in the january freezer
        # incident?": its "Downtime: 5 hours 38 minutes", not a procedure's 20-minute limit
        # on entering SF-2)
        same = [
            s
            for s in answering
            if s.document_id != lead.document_id
            and trust(s.source) >= trust(lead.source)
            and s.values
            and s.coverage >= lead.coverage
            and by_name(s)
        ]

        def own_figure(s: Scored) -> bool:
            # the record's measurement, labelled with what it measures ("Downtime: 02:14 to
            # 07:52, 5 hours 38 minutes"), ahead of a span it mentions ("a dip of under half
            # a second")
            return any(
                words.matching(_DURATION_LABELS, words.terms(label_of(s.unit.text, v)))
                for v in s.values
            )

        same.sort(key=own_figure, reverse=True)
    best = max(same, key=named, default=None)
    if best is None or named(best) < MIN_COVERAGE_OPEN:
        return None
    return best


def trusted_instead(
    lead: Scored,
    support: Sequence[Scored],
    similar: Callable[[Scored, Scored], float],
    question: Question,
) -> Scored | None:
    """A supporting unit from a more trusted source that states the lead's thing with another
    value (the accepted runbook's 35 days quoted after a meeting note's 14 days)."""
    for other in support:
        if said_trust(other) <= said_trust(lead) or _different_value(lead, other, question) is None:
            continue
        if similar(lead, other) >= SAME_THING:
            return other
    return None


def _similarity(texts: Sequence[str]) -> Callable[[Scored, Scored], float]:
    """How much two units say about the same thing: the IDF-weighted share of the smaller
    one's words (its numbers left out) that the other holds, IDF over the candidate units."""
    frequency: dict[str, int] = {}
    for text in texts:
        for term in words.terms(text):
            frequency[term] = frequency.get(term, 0) + 1
    count = len(texts)

    def weight(term: str) -> float:  # smoothed: a word both units share still counts
        return words.idf(count, frequency.get(term, 0)) + 1.0

    def similar(a: Scored, b: Scored) -> float:
        mine = {t for t in unit_terms(a.unit) if not t[:1].isdigit()}
        theirs = {t for t in unit_terms(b.unit) if not t[:1].isdigit()}
        if not mine or not theirs:
            return 0.0
        shared = words.matching(mine, theirs)
        smaller = min(sum(weight(t) for t in mine), sum(weight(t) for t in theirs))
        return sum(weight(t) for t in shared) / smaller if smaller else 0.0

    return similar


def _same_kind(a: Scored, b: Scored) -> bool:
    return bool({v.kind for v in a.values} & {v.kind for v in b.values})


def _names_another_code(question: Question, unit: Unit) -> bool:
    """The unit names a code like one the question names, but not it ("CH1" for ch2)."""
    text = f"{unit.text} {unit.section} {unit.context}"
    for name in question.names:
        code = re.fullmatch(r"([A-Za-z]+)[-\s]?\d+", name)
        if code is None or names_in([name], text):
            continue
        if re.search(rf"(?<![\w-]){re.escape(code.group(1))}[-\s]?\d+(?![\w-])", text, re.I):
            return True
    return False


def _another_amount_of_the_same_measure(a: Scored, b: Scored) -> bool:
    """The two units state different amounts counted or measured in the same unit ("300
    RLU" and "150 RLU", "-18 °C" and "-21 °C"); a span of time or a sum of money is too common
    a measure to say they are about the same thing."""
    measured = (vals.COUNT, vals.QUANTITY)
    return any(
        x.kind == y.kind
        and x.kind in measured
        and len(x.key) > 1
        and x.key[1]
        and x.key[1:] == y.key[1:]
        and x.key != y.key
        for x in a.values
        for y in b.values
    )


# A unit saying what came before ("Replaces: ...", "Previously: ...").
_LOOKS_BACK = re.compile(
    r"(?:replaces|supersedes|previously|formerly|predecessor|previous (?:version|system))\b"
    r"[^:]{0,20}:",
    re.I,
)


def _looks_back(unit: Unit) -> bool:
    return _LOOKS_BACK.match(unit.bare or unit.text) is not None


_ORIGINAL = re.compile(r"\b(original(?:ly)?|first|initial(?:ly)?|earliest)\b", re.I)


def _best_of(document_id: int, question: Question, ranked: Sequence[Scored]) -> Scored | None:
    """The best unit of one document, carrying the kind of value asked for when one does."""
    of_document = [s for s in ranked if s.document_id == document_id]
    fitting = [s for s in of_document if s.values or not question.specific]
    best = fitting or of_document
    return best[0] if best else None


def _reasons_of(document_ids: Collection[int], ranked: Sequence[Scored]) -> list[Scored]:
    """The units of these documents that sit in a section about causes or reasons, best
    first: what a record says of why."""
    return [
        s for s in ranked if s.document_id in document_ids and in_reason_section(s.source, s.unit)
    ]


def _named_record(
    question: Question, lead: Scored, links: Sequence[SupersedeLink], weights: dict[str, float]
) -> int:
    """The record of the supersede chain a question is about: the one whose title states most
    of the question (at least TITLE_NAMES of it), else the lead's document."""
    titles = {ref.document_id: ref.title for link in links for ref in (link.older, link.newer)}
    named = {
        document_id: coverage(question.terms, weights, words.terms(title), frozenset())
        for document_id, title in titles.items()
    }
    about = max(named, key=lambda d: named[d], default=None)
    return about if about is not None and named[about] >= TITLE_NAMES else lead.document_id


def _chain_of(document_id: int, links: Sequence[SupersedeLink]) -> list[DocumentRef]:
    """The records connected to `document_id` by supersede links (itself included when it is
    in a chain), oldest first by the links' order."""
    refs = {ref.document_id: ref for link in links for ref in (link.older, link.newer)}
    if document_id not in refs:
        return []
    connected, frontier = {document_id}, [document_id]
    while frontier:
        current = frontier.pop()
        for link in links:
            for a, b in ((link.older, link.newer), (link.newer, link.older)):
                if a.document_id == current and b.document_id not in connected:
                    connected.add(b.document_id)
                    frontier.append(b.document_id)
    return [refs[d] for d in refs if d in connected]


def _in_force(
    question: Question, lead: Scored, links: Sequence[SupersedeLink], weights: dict[str, float]
) -> tuple[DocumentRef | None, DocumentRef | None]:
    """For "what did we use for X in March 2024?": the record of X's chain in force on the
    asked date (by the dates the records state, see chat.answers.history), and the record
    that replaced it (None while it is still in force). A why-question's date says when
    what it asks about happened ("why did the rules change in 2025?"), not what was in
    force then."""
    if question.as_of is None or not links or question.kind == REASON:
        return None, None
    chain = _chain_of(_named_record(question, lead, links, weights), links)
    dated = [history.Dated(document_id=ref.document_id, since=ref.since) for ref in chain]
    placed = history.in_force_on(dated, question.as_of.day)
    if placed is None:
        return None, None
    refs = {ref.document_id: ref for ref in chain}
    newer = [
        link.newer
        for link in links
        if link.older.document_id == placed.document_id and link.newer.document_id in refs
    ]
    return refs[placed.document_id], (newer[0] if newer else None)


def _moved_off(
    question: Question, lead: Scored, links: Sequence[SupersedeLink], weights: dict[str, float]
) -> SupersedeLink | None:
    """For "when did we move off X?" and "why did we drop X?": X's link to the record that
    replaced it."""
    if not (question.asks_end and question.kind in (DATE, REASON)) or not links:
        return None
    # what was left is named by the question's other words ("ditch" names nothing)
    about = _named_record(
        replace(question, terms=question.terms - question.leaving), lead, links, weights
    )
    left = next((link for link in links if link.older.document_id == about), None)
    if left is None and question.kind == REASON:
        # "why did the lockout rules change?": the new version of the rules says why
        left = next((link for link in links if link.newer.document_id == about), None)
    return left


# The end of a thing's life, as records state it ("Sentry was switched off on ...")
_ENDED = re.compile(
    r"\b(?:switched off|turned off|shut down|closed down|decommissioned|retired|withdrawn|"
    r"phased out|taken out of service)\b",
    re.I,
)


def _ended(question: Question, ranked: Sequence[Scored]) -> Scored | None:
    """For "when did the old Sentry scanner get turned off?": the best unit that names the
    thing, says it was switched off (decommissioned, retired) and dates it, in the most
    trusted record that says so (the one that replaced it, mostly), not the date its successor was
    decided nor when the one before it went."""
    said = _ENDED.search(question.text)  # ("when was X switched off?" asks no more)
    if question.kind != DATE or not (question.asks_end or said):
        return None
    # ("aurora": a name typed in lower case is the words left)
    thing = question.terms - question.leaving - (words.terms(said.group(0)) if said else set())
    ended = [
        s
        for s in ranked[:MAX_CONTENDERS]
        if s.values
        and _ENDED.search(s.unit.text)
        and (
            names_in(question.names, s.unit.text)
            if question.names
            else bool(thing) and words.matching(thing, unit_terms(s.unit)) == thing
        )
    ]
    # the most trusted says it (a bulletin's plan to switch it off is not when it went)
    return max(ended, key=said_trust, default=None)


def _from_chain(
    question: Question,
    lead: Scored,
    ranked: Sequence[Scored],
    links: Sequence[SupersedeLink],
    weights: dict[str, float],
) -> Scored:
    """For "what did we use before X?": the best unit of the record X replaced (the first
    record of the chain for "the original ..."), when it is among the sources. X is the
    record of the chain whose title says most of the question, else the lead's.
    For "are we still on X?" (a yes/no question about now): when X's record was replaced,
    its best unit leads, so the answer says what replaced it and since when; not the
    successor's sentences that talk about X ("how do I see the resets today?" asks nothing
    of a record)."""
    subject = _named_record(question, lead, links, weights)
    if question.asks_current and not question.asks_past:
        replaced = any(link.older.document_id == subject for link in links)
        if question.kind != YESNO or subject == lead.document_id or not replaced:
            return lead
        return _best_of(subject, question, ranked) or lead
    if question.at_the_time and not _ORIGINAL.search(question.text):
        # "back when we had Aurora, how long was data kept?": Aurora's record answers
        return (
            lead if subject == lead.document_id else (_best_of(subject, question, ranked) or lead)
        )
    older = {link.newer.document_id: link.older.document_id for link in links}
    if _ORIGINAL.search(question.text):
        # "the very first X": the first record of the chain, which may be the one it names
        target, seen = subject, {subject}
        while target in older and older[target] not in seen:
            target = older[target]
            seen.add(target)
        if target == lead.document_id:
            return lead
        return _best_of(target, question, ranked) or lead
    before = older.get(subject)
    if before is None:
        if subject != lead.document_id and subject in older.values():
            # "what did we check the analysers against before the new photometers?": the
            # record whose title says the question is itself one that was replaced, by the
            # lead's record (which brought the photometers): it says what was done before,
            # where its unit states the question nearly as well as the lead
            then = _best_of(subject, question, ranked)
            if then is not None and then.coverage >= SAME_SUBJECT * lead.coverage:
                return then
        return lead
    return _best_of(before, question, ranked) or lead


def _superlative_row(question: Question, lead: Scored, ranked: Sequence[Scored]) -> Scored:
    """For "which vendor scored best?": of the rows of the lead's table (or of the best table
    among the candidates), the one with the highest (lowest) number in the column the question
    names, else in its last numeric column (a total)."""
    if not question.superlative:
        return lead
    rows = [s for s in ranked[:MAX_CONTENDERS] if s.unit.kind == "row"]
    if not rows:
        return lead
    table = _list_key(lead) if lead.unit.kind == "row" else _list_key(rows[0])
    members = [s for s in ranked if s.unit.kind == "row" and _list_key(s) == table]

    def cells(row: Scored) -> list[tuple[str, float]]:
        out = []
        for label, value in _row_cells(row.unit):
            # a number, with its currency or unit ("EUR 96,000", "97.8%", "1,250 kVA")
            number = re.fullmatch(
                r"\s*(?:[€$£]|[A-Z]{3}\s)?\s*(-?\d[\d,]*(?:\.\d+)?)\s*(?:%|[A-Za-z]{1,4})?\s*",
                value,
            )
            if number:
                out.append((label, float(number.group(1).replace(",", ""))))
        return out

    def column(row: Scored) -> float | None:
        found = cells(row)
        named = [v for label, v in found if words.matching(question.terms, words.terms(label))]
        if named:
            return named[0]
        return found[-1][1] if found else None

    valued: list[tuple[float, Scored]] = []
    for row in members:
        value = column(row)
        if value is not None:
            valued.append((value, row))
    if len(valued) < 2:
        return lead
    pick = max if question.superlative == MOST else min
    return pick(valued, key=lambda pair: pair[0])[1]


def _row_cells(unit: Unit) -> list[tuple[str, str]]:
    """A table row's cells after its first (its key), as (column label, value)."""
    return [
        (label, value)
        for label, _, value in (
            cell.partition(": ") for cell in unit.bare.partition(" — ")[2].split("; ")
        )
    ]


def _another_row_named(question: Question, row: Scored, ranked: Sequence[Scored]) -> bool:
    """A row of a table whose cell in some column states some words of the question while
    another row's cell in that column states those and more ("Granular activated carbon" and
    "Powdered activated carbon" for "powdered activated carbon"): the question names the
    other row, and this one's values are not about what it asks."""
    if row.unit.kind != "row":
        return False
    key = _list_key(row)
    mine = {
        label: words.matching(question.terms, words.terms(value))
        for label, value in _row_cells(row.unit)
    }
    whole = words.matching(question.terms, unit_terms(row.unit))
    for other in ranked:
        if other.unit.kind != "row" or other.unit == row.unit or _list_key(other) != key:
            continue
        for label, value in _row_cells(other.unit):
            if label not in mine:
                continue
            said = mine[label]
            theirs = words.matching(question.terms, words.terms(value))
            # (what the other cell says more, this row says nowhere: "Harbour House,
            # replicated to Ambrook" names no other row than one whose notes say Harbour House)
            if said and said < theirs and not (theirs - said) & whole:
                return True
    return False


def _row_key(unit: Unit) -> str:
    """A table row's first cell, which names what the row is about ("Quarry Bank")."""
    return unit.bare.partition(" — ")[0] if unit.kind == "row" else ""


def _siblings(question: Question, ranked: Sequence[Scored]) -> dict[str, frozenset[str]]:
    """For each thing the question names that a table row is about (the row's first cell,
    all of whose words the question's names say), what the table's other rows are about
    ("Fenwick Lane", "Oxley Mill" for "Quarry Bank"): the other things of its kind."""
    rows = [s for s in ranked if s.unit.kind == "row" and _row_key(s.unit)]
    found: dict[str, frozenset[str]] = {}
    for row in rows:
        key = _row_key(row.unit)
        named = names_in(question.names, key)
        # (not a row about more than the name: "Hallam Road" for "Hallam")
        if named and names_in([key], " ".join(named)):
            table = _list_key(row)
            others = {_row_key(o.unit) for o in rows if _list_key(o) == table} - {key}
            found[key] = found.get(key, frozenset()) | others
    # ...and, for a name the question follows with a noun ("Lantern Hill reservoir"), the
    # other names the units write that noun into, capitalised ("Kestle Moor Reservoir"; not
    # "Automatic failover" for "Redis failover")
    for name in question.names:
        after = re.search(rf"\b{re.escape(name)}\s+([a-z]{{3,}})\b", question.text, re.I)
        noun = after.group(1).lower() if after else ""
        if not noun or noun in words.STOPWORDS:
            continue
        written = re.compile(rf"\b((?:[A-Z][\w'’-]*\s+){{1,3}}){noun.capitalize()}s?\b")
        others = {
            other
            for s in ranked
            for match in written.finditer(s.unit.text)
            if (other := _bare_name(match.group(1))) and not names_in([name], other)
        }
        if others:
            found[name] = found.get(name, frozenset()) | others
    return found


def _bare_name(words_before: str) -> str:
    """The name in the capitalised words before a noun, without a leading article or
    pronoun ("The Kestle Moor" -> "Kestle Moor")."""
    kept = words_before.split()
    while kept and kept[0].lower() in words.STOPWORDS:
        kept = kept[1:]
    return " ".join(kept)


def _of_a_sibling(question: Question, scored: Scored, siblings: dict[str, frozenset[str]]) -> bool:
    """The unit names another thing of the kind of one the question names (`_siblings`), and
    not that one, itself or under its heading: what it says is of the other ("the contract
    covers Fenwick Lane and Oxley Mill ... guarantees 98.5%" for Quarry Bank's guarantee)."""
    unit = scored.unit
    stated = f"{unit.text} {unit.section} {unit.context}"
    return any(
        not names_in([asked], stated) and any(names_in([other], unit.text) for other in others)
        for asked, others in siblings.items()
    )


def _answers_with_list(question: Question, lead: Scored, weights: dict[str, float]) -> bool:
    """Whether the lead's whole list (or table) is the answer: the question asks for several
    things, or for steps, or for what a list introduced by words of the question holds."""
    if lead.unit.group < 0:
        return False
    if question.wants_list or question.kind == HOWTO:
        return True
    if question.kind not in (WHAT, WHICH) or question.identifiers:
        return False  # "what does GW-4021 mean?" wants its meaning, not every line about it
    intro = words.terms(f"{lead.unit.context} {lead.unit.section}")
    return coverage(question.terms, weights, intro, frozenset()) >= LIST_INTRO


def _list_key(scored: Scored) -> tuple[object, ...]:
    """Which list a unit belongs to: items under one lead-in of one section of a document are
    one list, even when the chunk window cut it in two."""
    hit = scored.source.hit
    if scored.unit.context:
        return (hit.document_id, hit.heading_path, scored.unit.context)
    if scored.unit.kind == "row" and scored.unit.label:  # rows of one table (its first column)
        return (hit.document_id, hit.heading_path, "row", scored.unit.label)
    return (hit.document_id, hit.chunk_id, scored.unit.group)


def _list_siblings(lead: Scored, ranked: Sequence[Scored]) -> tuple[Scored, ...]:
    """The other items of the lead's list (rows of its table), in document order, each once
    (chunks overlap); all of them (the caller keeps MAX_LIST_ITEMS of those it asks for)."""
    if lead.unit.group < 0:
        return ()
    key = _list_key(lead)

    def opening(scored: Scored) -> str:  # an item cut at a chunk's end opens like its whole
        return " ".join(scored.unit.bare.lower().split())[:48]

    members = [s for s in ranked if s.unit.group >= 0 and _list_key(s) == key]
    whole: dict[str, Scored] = {}
    for s in members:  # each item once: the longest copy of it
        if len(s.unit.bare) > len(whole.get(opening(s), s).unit.bare) or opening(s) not in whole:
            whole[opening(s)] = s
    whole.pop(opening(lead), None)
    siblings = sorted(whole.values(), key=lambda s: (s.source.hit.chunk_order, s.unit.position))
    return tuple(siblings)


def _rows_asked(
    question: Question, lead: Scored, siblings: tuple[Scored, ...]
) -> tuple[Scored, ...]:
    """Of a table's rows, those that hold what the question asks them to hold ("which raw
    materials have celery in": the rows with celery), when the lead row holds words of the
    question that its table's title, heading and lead-in do not say."""
    if lead.unit.kind != "row" or not siblings or question.asks_change:
        return siblings  # (every row of a table of changes says what changed)
    around = context_terms(lead.source, lead.unit)
    condition = frozenset(
        words.matching(question.terms, unit_terms(lead.unit))
        - words.matching(question.terms, around)
    )
    if not condition:
        return siblings
    return tuple(
        s
        for s in siblings
        if s.unit.kind != "row" or words.matching(condition, unit_terms(s.unit)) == condition
    )


def proper_names(question: Question) -> list[str]:
    """The names the question writes in words ("the Atlas Mountains"), not its codes and
    numbers ("ROC", "hb1", "18 m/s"), which may be the very thing a record says otherwise."""
    return [
        name
        for name in question.names
        if name != name.upper() and not any(ch.isdigit() for ch in name)
    ]


def _supporting(
    question: Question,
    lead: Scored,
    listed: Sequence[Scored],
    taken: Sequence[Scored],
    ranked: Sequence[Scored],
    reasons_of: int | None = None,
) -> list[Scored]:
    """Up to MAX_SUPPORT more units nearly as good as the lead, from sources trusted as much,
    that add something (not the same statement again, not an option that was not chosen).
    A lead giving a rejected approach's reasons (`reasons_of`: its record) is supported by
    its other reasons only: other documents say no more than that it was rejected."""
    chosen: list[Scored] = []
    seen = [unit_terms(s.unit) for s in (lead, *listed, *taken)]
    proper = proper_names(question)
    forbidding = forbids(lead.unit)
    # the sentence going on from the lead ("Until that is approved, ...") is read with it
    going_on = [
        s
        for s in ranked[:MAX_CONTENDERS]
        if s.source.n == lead.source.n
        and s.unit.kind == "sentence"
        and s.unit.context == lead.unit.text
        and s.score >= lead.score - SUPPORT_MARGIN
    ]
    # ...and a lead opening with a pronoun ("They are reviewed every six months.") with the
    # sentence it stands for, however it scores
    stands_for = (
        [
            s
            for s in ranked
            if s.source.n == lead.source.n
            and s.unit.kind == "sentence"
            and s.unit.text != lead.unit.text
            and lead.unit.context.endswith(s.unit.text)
        ]
        if refers_back(lead.unit)
        else []
    )
    for other in stands_for[:1]:
        chosen.append(other)
        seen.append(unit_terms(other.unit))
    for other in [*going_on[:1], *ranked[:MAX_CONTENDERS]]:
        if len(chosen) >= MAX_SUPPORT - len(taken):
            break
        if other.score < lead.score - SUPPORT_MARGIN or other.shared == 0:
            break
        if reasons_of is not None:
            if other.document_id != reasons_of or not in_reason_section(other.source, other.unit):
                continue
        elif said_trust(other) < said_trust(lead) or other.source.block == "rejected":
            continue
        if trust(other.source) == TRUST_HISTORY and not question.asks_past:
            continue  # history supports only a question about the past
        if other.unit.alternative and not question.asks_alternatives:
            continue
        if forbidding and _does(other.unit) and other.unit.section != lead.unit.section:
            continue  # the steps of another procedure do not follow from "never do this"
        own = unit_terms(other.unit)
        if any(len(own & terms) >= REPEATS * max(len(own), 1) for terms in seen):
            continue  # the same statement again (a summary and its section, chunk overlap)
        if other.document_id != lead.document_id and not (
            bears_on(question, other) and names_present(proper, other.source, other.unit)
        ):
            continue  # (nor does a unit about another thing than the one the question names)
        chosen.append(other)
        seen.append(own)
    return chosen


def _does(unit: Unit) -> bool:
    """A step of a procedure or its command."""
    return unit.step or unit.kind == "code"


def forbids(unit: Unit) -> bool:
    """An item or row of a list introduced as what must not be done ("Never remote reset
    these fault codes:")."""
    return not _does(unit) and bool(_PROHIBITS.search(unit.context))


# A lead-in that forbids what it lists (not "allowed only:", which lists conditions).
_PROHIBITS = re.compile(
    r"\b(?:never|must not|mustn't|do not|don't|may not|cannot|can't|not allowed|forbidden|"
    r"prohibited|banned)\b",
    re.I,
)


def _forbidden_case(question: Question, lead: Scored, ranked: Sequence[Scored]) -> Scored | None:
    """An item of a list of what must never be done that holds a word of the question the
    lead does not ("how do I reset a turbine after a fire alarm?": "Never remote reset these
    fault codes: ... Fire detection"): the rule for the case asked answers, not the steps."""
    said = unit_terms(lead.unit) | words.terms(f"{lead.unit.section} {lead.unit.context}")
    has = words.matching(question.terms, said)
    for other in ranked[:MAX_CONTENDERS]:
        if (
            forbids(other.unit)
            and trust(other.source) >= trust(lead.source)
            and other.score >= lead.score - LIST_MARGIN
            and words.matching(question.terms, unit_terms(other.unit)) - has
        ):
            return other
    return None


RULE_REACH = 2  # sentences before and after a rule that may say who may, or why not


def _rule_around(question: Question, lead: Scored, ranked: Sequence[Scored]) -> list[Scored]:
    """A yes/no question answered by a rule ("Line operators must never empty a reject bin")
    reads the rule in its paragraph: the sentences next to it, under the same heading of the
    same source, that name the question's subject ("Every reject bin is locked") or say who
    may instead ("Only QA holds the keys"), in document order. A rule that is an item of a
    list reads the other items of its list that state a rule about the question's subject
    ("Only COL3 operators and the Works Manager may change the dose"), wherever they are in
    it: a list's items are its rules, not a paragraph's sentences."""
    if lead.unit.kind not in ("sentence", "item") or not _polarity(lead.unit.text):
        return []
    if lead.unit.kind == "item":
        around = [
            s
            for s in ranked
            if s.source.n == lead.source.n
            and s.unit.kind == "item"
            and s.unit.group == lead.unit.group
            and s.unit.section == lead.unit.section
            and s.unit.position != lead.unit.position
            and _polarity(s.unit.text)
            and words.matching(question.terms, unit_terms(s.unit))
        ]
    else:
        around = [
            s
            for s in ranked
            if s.source.n == lead.source.n
            and s.unit.kind == "sentence"
            and s.unit.section == lead.unit.section
            and 0 < abs(s.unit.position - lead.unit.position) <= RULE_REACH
            and (words.matching(question.terms, unit_terms(s.unit)) or _polarity(s.unit.text))
        ]
    around.sort(key=lambda s: (-s.score, s.unit.position))
    return sorted(around[:MAX_SUPPORT], key=lambda s: s.unit.position)


def _unquoted(support: Sequence[Scored], quoted: Sequence[Scored]) -> tuple[Scored, ...]:
    """The supporting units in order, each text once and none the answer quotes already (a
    command two rules took, a passage the chunk overlap repeats)."""
    said = {s.unit.text for s in quoted}
    kept = []
    for unit in support:
        if unit.unit.text not in said:
            said.add(unit.unit.text)
            kept.append(unit)
    return tuple(kept)


def bears_on(question: Question, other: Scored) -> bool:
    """A unit of another document than the lead's bears on the question: it states two of its
    words (all of them, for a question of one) with its context, not only the one it shares
    by chance, and one of them in itself or the heading it sits under; of an elliptical
    follow-up's, also two words of the subject it carries in itself or that heading ("and at
    carn dubh?" after the ice exclusion zone around a turbine: not a sentence on Carn Dubh's
    turbines' warranty, in a document whose summary speaks of ice)."""
    unit = other.unit
    section = unit.section if unit.section != other.source.hit.title else ""
    own = unit_terms(unit) | words.terms(section)
    held = own | context_terms(other.source, unit)
    carried = min(MIN_OTHER_DOCUMENT_TERMS, len(question.carried))
    if len(words.matching(question.carried, own)) < carried:
        return False
    wanted = min(MIN_OTHER_DOCUMENT_TERMS, len(question.terms))
    # (at least one in the unit or the heading it sits under: a row that only its document's
    # title, summary or the paragraph before it tie to the question does not bear on it)
    return len(words.matching(question.terms, held)) >= wanted and bool(
        words.matching(question.terms, own)
    )


def _stated(question: Question, units: Sequence[Scored]) -> set[str]:
    """The question's terms the given units (with their context) state."""
    held: set[str] = set()
    for scored in units:
        held |= unit_terms(scored.unit) | context_terms(scored.source, scored.unit)
    return words.matching(question.terms, held)


def _second_part(
    question: Question,
    answer: Sequence[Scored],
    ranked: Sequence[Scored],
    weights: dict[str, float],
) -> Scored | None:
    """A question of two parts ("how much for 40 packs of agar plates, and do I need to get
    quotes?"): when the answer so far does not state the second part, the unit stating most
    of it: of the lead's document, else of one trusted as much."""
    if not question.then:
        return None
    lead = answer[0]
    held: set[str] = set()
    for scored in answer:
        held |= unit_terms(scored.unit)
    part = question.then
    if coverage(part, weights, frozenset(held), frozenset()) >= MIN_SECOND_HOP:
        return None
    named = words.terms(" ".join(_bridge_names(question, lead)))

    def bridged(other: Scored) -> bool:
        return bool(named) and words.matching(named, unit_terms(other.unit)) == named

    best: tuple[tuple[bool, float], Scored] | None = None
    for other in ranked:
        if other.unit == lead.unit or other.source.block == "rejected" or asks(other.unit):
            continue
        if (
            other.document_id != lead.document_id
            and trust(other.source) < trust(lead.source)
            and not bridged(other)
        ):
            continue  # (of another, less trusted source: only about what the answer named)
        share = coverage(part, weights, unit_terms(other.unit), frozenset())
        if share < MIN_SECOND_HOP:
            continue
        # the lead's document first: it says how its own case stands ("no quotes are needed"
        # on the price list, before the policy's general rule); then the most of the part
        key = (other.document_id == lead.document_id, share)
        if best is None or key > best[0]:
            best = (key, other)
    return best[1] if best else None


def _then_query(question: Question, answer: Sequence[Scored]) -> str:
    """For a question of two parts whose second no unit states ("which depot flooded in
    march, and who is its manager?"): a search for the second part by the names the answer
    so far gives that the question does not (the depot's "Harbour Quay")."""
    if not question.then:
        return ""
    part = [w for w in re.findall(r"[\w'-]+", question.text) if words.terms(w) & question.then]
    named = _bridge_names(question, answer[0])
    return " ".join(dict.fromkeys([*part, *named])) if part and named else ""


def _bridge_names(question: Question, scored: Scored) -> list[str]:
    """The names and codes a unit states that the question does not: what its answer found."""
    asked = words.terms(question.text)
    return [
        v.text
        for v in vals.values_in(scored.unit.text)
        if v.kind in (vals.NAME, vals.CODE)
        and v.start >= scored.unit.body_start
        and not words.terms(v.text) & asked
    ]


def _second_hop(
    question: Question,
    answer: Sequence[Scored],
    ranked: Sequence[Scored],
    weights: dict[str, float],
) -> Scored | None:
    """A unit of another document stating what the answer so far leaves out of the question."""
    lead = answer[0]
    missing = frozenset(question.terms - _stated(question, answer))
    whole = sum(weights.get(t, 0.0) for t in question.terms)
    if not missing or sum(weights.get(t, 0.0) for t in missing) < UNSTATED_SHARE * whole:
        return None
    # codes and names of the lead's unit (a priority "P2", an incident id) bridge the hop
    bridge = words.terms(
        " ".join(v.text for v in vals.values_in(lead.unit.text) if v.kind != vals.DURATION)
    )
    best: tuple[float, Scored] | None = None
    for other in ranked:
        if other.document_id == lead.document_id or other.source.block == "rejected":
            continue
        if trust(other.source) < min(trust(lead.source), TRUST_REVIEW):
            continue  # a note does not complete a record's answer (it may disagree with it)
        own, around = unit_terms(other.unit), context_terms(other.source, other.unit)
        share = coverage(missing, weights, own, around)
        if share < MIN_SECOND_HOP or not words.matching(missing, own):
            continue  # it states something left out itself, not only its document's summary
        bridged = words.matching(bridge, own)
        if not bridged and not bears_on(question, other):
            continue
        bonus = 0.2 * len(bridged)
        key = share + bonus + 0.1 * other.score
        if best is None or key > best[0]:
            best = (key, other)
    return best[1] if best else None


_CODE = re.compile(r"\b(?:[A-Z]+\d+[A-Za-z]?|[A-Z]{2,}-\d+)\b")

MAX_HOLDERS = 2
HOLDER_REACH = 24  # characters between a person's name and the role it holds


def _names_a_person(units: Sequence[Scored]) -> bool:
    return any(vals.is_person_like(v) and not vals.is_role(v) for s in units for v in s.values)


def _holders(
    question: Question, answer: Sequence[Scored], ranked: Sequence[Scored], roles: Sequence[str]
) -> list[Scored]:
    """For each role the answer names, the unit of another document naming who holds it: the
    role's words and a person's name, preferring one that states what the answer leaves out
    of the question (the site asked about)."""
    lead = answer[0]
    missing = frozenset(question.terms - _stated(question, answer))
    chosen: list[Scored] = []
    for role in roles:
        wanted = words.terms(role)
        best: tuple[float, Scored] | None = None
        for other in ranked:
            if other.document_id == lead.document_id or other.source.block == "rejected":
                continue
            if trust(other.source) == TRUST_HISTORY and not question.asks_past:
                continue  # who held the role once ("HSE Manager until 2022")
            own = unit_terms(other.unit)
            if words.matching(wanted, own) != wanted:
                continue
            # a name next to the role ("Tor Eriksen - Site Manager", "HSE Manager: Sindre
            # Bakke"), not somewhere in a passage that mentions the role
            at = [
                m.start() for m in re.finditer(re.escape(role.split()[-1]), other.unit.text, re.I)
            ]
            people = [
                v
                for v in vals.values_in(other.unit.text)
                if vals.is_person_like(v)
                and not vals.is_role(v)
                and any(v.start - HOLDER_REACH <= a <= v.end + HOLDER_REACH for a in at)
            ]
            if not people:
                continue
            key = len(words.matching(missing, own)) + 0.1 * other.score
            if best is None or key > best[0]:
                best = (key, other)
        if best is not None and all(best[1].unit != s.unit for s in chosen):
            chosen.append(best[1])
    return chosen[:MAX_HOLDERS]


def _role_query(question: Question, answer: Sequence[Scored], roles: Sequence[str]) -> str:
    """A search for who holds the answer's roles, with the question's words it leaves out."""
    missing = question.terms - _stated(question, answer)
    kept = [w for w in re.findall(r"[\w'-]+", question.text) if words.terms(w) & missing]
    return " ".join(dict.fromkeys([*roles, *kept]))


def _unstated(question: Question, answer: Sequence[Scored], weights: dict[str, float]) -> str:
    """The question's words the answer so far does not state, with the codes of its lead
    that link it onwards (a priority "P2"), when they weigh enough to look for: a query."""
    lead = answer[0]
    stated = _stated(question, answer)
    missing = question.terms - stated
    whole = sum(weights.get(t, 0.0) for t in question.terms)
    if not missing or sum(weights.get(t, 0.0) for t in missing) < UNSTATED_SHARE * whole:
        return ""
    kept = [w for w in re.findall(r"[\w'-]+", question.text) if words.terms(w) & missing]
    kept += _CODE.findall(lead.unit.text)
    return " ".join(dict.fromkeys(kept))


COMPARED_CANDIDATES = 5  # measurements and targets weighed against each other, best first


# The units a compare question's evidence states a measured duration in, those stating a
# target for it, and the words labelling each one's duration (`_measured_and_targets`).
Durations = tuple[list[Scored], list[Scored], dict[int, frozenset[str]]]


# A measurement labelled with the name of what it measures is the record's own figure
# ("Duration: 5 h 05 min"), ahead of other durations it mentions ("the longest 48 minutes").
_DURATION_LABELS = words.terms("duration downtime")


def _compared(
    question: Question, ranked: Sequence[Scored], durations: Durations
) -> tuple[Scored, Scored] | None:
    """For "was the outage fixed within the SLA target?": the target (a unit whose duration
    is labelled with what the question compares against, "Resolution target: 8 hours", or
    written as a limit on it, "within 4 hours") and the measured value held against it (a
    unit of another document stating a duration that is neither: "Duration: 6 h 10 min"),
    both from curated sources and about the question's subject. Of the pairs, the one whose
    measurement shares a code with the target (the incident's priority) and the most words
    with its label (what was measured: "trace complete"), then the best scored."""
    if not question.against:
        return None
    measured, targets, labels = durations
    codes = {
        document_id: {
            code
            for s in ranked
            if s.document_id == document_id
            for code in _CODE.findall(s.unit.text)
        }
        for document_id in {m.document_id for m in measured[:COMPARED_CANDIDATES]}
    }
    pairs = [
        (m, t)
        for m in measured[:COMPARED_CANDIDATES]
        for t in targets[:COMPARED_CANDIDATES]
        if m.document_id != t.document_id
    ]
    if not pairs:
        return None
    # ...a target in force, not a line saying how it changed ("P1 response target shortened
    # from 15 to 10 minutes" in the standard's history), and one labelled a target
    # ("Resolution target: 4 hours") ahead of a limit said in passing ("A P1 not resolved
    # within 2 hours is escalated"): read once per target, not once per pair
    in_force = {
        id(t): (
            not states_change(t.unit),
            any(_TARGET_LABEL.search(t.unit.text[: v.start]) for v in _durations(t.unit.text)),
        )
        for t in targets[:COMPARED_CANDIDATES]
    }

    def key(pair: tuple[Scored, Scored]) -> tuple[bool, int, bool, bool, bool, float]:
        m, t = pair
        bridged = any(re.search(rf"\b{re.escape(c)}\b", t.unit.text) for c in codes[m.document_id])
        alike = len(words.matching(labels[id(t)], labels[id(m)]))
        own = bool(words.matching(_DURATION_LABELS, labels[id(m)]))
        current, labelled = in_force[id(t)]
        return bridged, alike, own, current, labelled, m.score + t.score

    return max(pairs, key=key)


# What a compare question holds a measurement against, when it does not say ("within the SLA")
_TARGET_WORDS = words.terms("target limit deadline goal objective")
# ...written as the label of a value ("Resolution target: 4 hours")
_TARGET_LABEL = re.compile(
    r"\b(?:targets?|limits?|deadlines?|goals?|objectives?)\s*[:=–—-]?\s*$", re.I
)


def _target_query(question: Question, ranked: Sequence[Scored], durations: Durations) -> str:
    """For a compare question whose evidence states the measurement but no target: a search
    for the target, by what the question compares against, that it is a target, and the codes
    of the measurement ("SLA target P1" for "did we make the SLA on the February outage?",
    whose postmortem says P1)."""
    measured, targets, _ = durations
    if not measured or targets:
        return ""
    against = frozenset(question.against)
    kept = [w for w in re.findall(r"[\w'-]+", question.text) if words.terms(w) & against]
    if not against & _TARGET_WORDS:
        kept.append("target")  # what "making the SLA" holds a measurement against
    # the codes its document gives the measured thing (the incident's priority)
    kept += [
        code
        for s in ranked
        if s.document_id == measured[0].document_id
        for code in _CODE.findall(s.unit.text)
    ]
    return " ".join(dict.fromkeys(kept))


def says_more(first: EvidenceBrief, second: EvidenceBrief) -> bool:
    """The brief with a second retrieval's sources says more than the first: more supporting
    units, a yes or no it could not give, or, for a compare question, what was measured where
    the first stated only the target (the postmortem's duration beside the SLA's)."""
    if not second.answerable or second.lead is None:
        return False
    if len(second.support) > len(first.support) or (second.verdict and not first.verdict):
        return True
    if not second.question.compares:
        return False
    cited = {s.document_id for s in (first.lead, *first.listed, *first.support) if s is not None}
    # ...or what was measured where the first found neither it nor a target (the outage's
    # "Duration: 5 h 05 min" where the first quoted its timeline): the target comes next
    return second.lead.document_id not in cited or (second.measured and not first.measured)


def _measured_query(question: Question, durations: Durations) -> str:
    """For a compare question whose evidence states the target but not what was measured: a
    search for the measurement, by the question's subject without what it is compared against
    ("february lab results outage duration" for "did the february lab results outage get
    fixed within the P1 target?", whose postmortem says "Duration: 5 h 05 min")."""
    measured, _, _ = durations
    if measured:
        return ""
    subject = question.terms - frozenset(question.against) - _TARGET_WORDS
    kept = [w for w in re.findall(r"[\w'-]+", question.text) if words.terms(w) & subject]
    return " ".join([*dict.fromkeys(kept), "duration"]) if kept else ""


def _measured_and_targets(question: Question, ranked: Sequence[Scored]) -> Durations:
    """The units stating a measured duration and those stating a target for it, best first,
    with the words labelling each one's duration (see `_compared`)."""
    against = frozenset(question.against)
    head = frozenset(question.against[-1:])
    if not against & _TARGET_WORDS:
        head |= _TARGET_WORDS  # "did we make the SLA?": a target or limit, by any name
    measured: list[Scored] = []
    targets: list[Scored] = []
    labels: dict[int, frozenset[str]] = {}
    unlike: list[Scored] = []  # targets that state little of the question
    for at, scored in enumerate(ranked):
        if scored.source.block == "rejected" or trust(scored.source) < TRUST_REVIEW:
            continue
        # past the contenders, a unit may only be a target that names a code of what was
        # measured (the SLA's P1 row, below an incident's many timeline rows), or a record's
        # own figure, labelled with what it measures ("Duration: 5 h 05 min")
        far = at >= 2 * MAX_CONTENDERS
        close = scored.coverage >= MIN_COVERAGE_CLOSE
        text = scored.unit.text
        spans = _durations(text)
        if not spans:
            continue  # ("twice a day" says how often, not how long)
        # what each value is of: the words before it ("Full trace complete, 2 h 40 min")
        before = {id(v): words.terms(label_of(text, v)) for v in spans}
        # labelled with the target's name ("Resolution target: 8 hours"), or with what it
        # is a target for in a passage about targets ("Restore service: 4 hours" in a table
        # of priorities and targets)
        about_head = bool(words.matching(head, context_terms(scored.source, scored.unit)))
        named = [
            v
            for v in spans
            if words.matching(head, before[id(v)])
            or (about_head and words.matching(against - head, before[id(v)]))
        ]
        limited = [v for v in spans if vals.LIMIT_BEFORE.search(text[: v.start])]
        limits = [v for v in limited if words.matching(against, before[id(v)])]
        if named or limits:
            labels[id(scored)] = before[id((named or limits)[0])]
            (targets if close and not far else unlike).append(scored)
        elif (
            not limited
            and close
            and (not far or words.matching(_DURATION_LABELS, before[id(spans[0])]))
        ):
            labels[id(scored)] = before[id(spans[0])]
            measured.append(scored)
    # ...of which a target row that names a code of what was measured is its target all the
    # same ("P2 - High ...; Resolution target: 12 hours" for an outage whose postmortem says
    # P2, found by the second retrieval `_target_query` asks for)
    codes = {
        code
        for m in measured
        for s in ranked
        if s.document_id == m.document_id
        for code in _CODE.findall(s.unit.text)
    }
    targets += [
        t for t in unlike if any(re.search(rf"\b{re.escape(c)}\b", t.unit.text) for c in codes)
    ]
    return measured, targets, labels


def _durations(text: str) -> list[vals.Value]:
    """The spans of time a text states, not how often ("every 30 minutes")."""
    return [
        v for v in vals.values_in(text) if vals.duration_seconds(v) and not vals.recurs(text, v)
    ]


# Of targets named alike, the one nearest a measurement in scale is its target when the next
# is at least this many times as far (on a log scale: 3 h 15 min against 4 hours, not 1 hour)
SCALE_APART = 2.0


def _verdict(question: Question, lead: Scored, second: Scored | None) -> str:
    """Yes or no for "did X stay within Y?": the lead's measured value against the second's."""
    if not question.compares or question.kind != YESNO or second is None:
        return ""  # (a target-and-actual question asks no yes or no)
    mine = next((v for v in lead.values if v.kind == vals.DURATION), None)
    theirs = [v for v in _durations(second.unit.text) if v.kind == vals.DURATION]
    if mine is None or not theirs:
        return ""
    measured = vals.duration_seconds(mine)
    if measured is None:
        return ""
    # the target is the duration in the cell or clause named by the question's words; where
    # those name several alike ("the P1 target": response and resolution), the one of the
    # measurement's scale (an outage of hours against the target of hours)
    named = _named_values(question, second.unit.text, theirs)
    limits = sorted(
        (abs(math.log(seconds / max(measured, 1))), seconds)
        for v in named
        if (seconds := vals.duration_seconds(v))
    )
    if not limits or (len(limits) > 1 and limits[1][0] < SCALE_APART * limits[0][0]):
        return ""  # (an outage of 2 hours against 1 hour or 4: either could be meant)
    limit = limits[0][1]
    over = re.search(
        r"\b(more than|exceed\w*|over|above|longer|beyond|breach\w*)\b", question.text, re.I
    )
    within = measured <= limit
    return ("no" if within else "yes") if over else ("yes" if within else "no")


def _events_in_order(
    question: Question, ranked: Sequence[Scored], weights: dict[str, float]
) -> tuple[list[Scored], str] | None:
    """For "was the trust founded before the pier opened?": the units dating the two events
    the question orders (in the order it names them) and yes or no by their dates; None when
    either event has no date, or their dates do not tell the order (the same year, one
    without a month)."""
    first, second = question.in_order
    # the units with a date of known year, read once for both events
    dated = [
        (s, dates)
        for s in ranked
        if s.source.block != "rejected" and (dates := _year_dates(s.unit.text))
    ]
    earlier = _dated_event(first, second, question, dated, weights)
    later = _dated_event(second, first, question, dated, weights)
    if earlier is None or later is None:
        return None
    (first_unit, first_date), (second_unit, second_date) = earlier, later
    if first_unit is second_unit and first_date.start == second_date.start:
        return None  # one date for both: no order
    verdict = _order_verdict(first_date, second_date)
    if not verdict:
        return None
    named = sorted(
        ((question.text.find(first), first_unit), (question.text.find(second), second_unit)),
        key=lambda pair: pair[0],
    )
    units = [unit for _, unit in named if unit is not None]
    units = [unit for n, unit in enumerate(units) if unit not in units[:n]]
    return (units, verdict) if units else None


def _dated_event(
    side: str,
    other: str,
    question: Question,
    dated: Sequence[tuple[Scored, list[vals.Value]]],
    weights: dict[str, float],
) -> tuple[Scored | None, vals.Value] | None:
    """When one event a question orders happened: the date the question gives it ("before
    1900"), or the unit stating it (`MIN_COVERAGE` of its words, all of those besides its
    names in the unit or its heading) with a date of known year. A side naming only a thing
    ("was the Kiel Canal opened before the Panama Canal?") is of the other side's event. Of
    such units, one saying it of no other name (nor of a longer one) first, then the best
    covered, then one whose date is in the clause saying the event, then the closest date
    (`_event_date`)."""
    # (the date of an event is when it began: "began studying law" is dated by "studied law
    # from 1496")
    terms = words.terms(side) - _BEGINNING
    stated = _year_dates(side)
    if stated and not terms - words.terms(stated[0].text):
        return None, stated[0]
    names = [name for name in question.names if name in side]
    named = words.terms(" ".join(names))
    said = terms - named - words.terms(other)
    if not said:
        theirs = words.terms(" ".join(name for name in question.names if name in other))
        said = words.terms(other) - theirs - terms
        terms |= said
    # what the side names, as typed, when no name was read from it ("the forth bridge")
    thing = " ".join(w for w in re.findall(r"[\w'-]+", side) if words.terms(w) - said)
    best: tuple[tuple[bool, float, bool, int, float], Scored, vals.Value] | None = None
    for scored, dates in dated:
        own = unit_terms(scored.unit) | words.terms(scored.unit.section)
        if words.matching(said, own) != said:
            # (the trust's other deeds do not date its founding, nor does the sentence
            # before; "the mission ended" does not date the Rosetta mission's launch)
            continue
        text = scored.unit.text
        around = context_terms(scored.source, scored.unit)
        if names and names_present(names, scored.source, scored.unit):
            # (a name its document's title or summary says counts as context)
            around |= named
        share = coverage(terms, weights, own, around)
        if share < MIN_COVERAGE:
            continue
        date, in_clause, distance = _event_date(text, dates, said or terms)
        elsewhere = _parted_by_another_name(names, said, text) or _names_a_longer(
            names or [thing], text
        )
        key = (not elsewhere, share, in_clause, -distance, scored.score)
        if best is None or key > best[0]:
            best = (key, scored, date)
    return (best[1], best[2]) if best else None


# Words saying that something began, or was done for the first time: closed-class English
_BEGINNING = words.terms("begin began begun start started first commence commenced")


def _event_date(
    text: str, dates: Sequence[vals.Value], said: frozenset[str]
) -> tuple[vals.Value, bool, int]:
    """Of a text's dates (`_year_dates`), the one dating what the words `said` say: one in the same clause
    as those words, then the nearest ("It was founded on 3 May 1852 ..., and took over the
    ferries in 1907": 1852 for the founding; not the year a relative clause gives, "founded
    the Committee of Five, which took its name in 1876"); with whether it is in their clause
    and how far from them it is."""
    spots = [start for start, _ in _spans_saying(text, said)]
    if not spots:
        return dates[0], False, len(text)
    breaks = [m.start() for m in _CLAUSE_BREAK.finditer(text)]
    clauses = {bisect.bisect(breaks, spot) for spot in spots}
    ranked = sorted(
        (
            bisect.bisect(breaks, v.start) not in clauses,
            min(abs(v.start - spot) for spot in spots),
            n,
        )
        for n, v in enumerate(dates)
    )
    elsewhere, distance, n = ranked[0]
    return dates[n], not elsewhere, distance


# where a sentence's clauses part: a relative or a joined clause says something else
_CLAUSE_BREAK = re.compile(
    r";|,\s+(?:which|who|whom|whose|where|when|while|whereas|but|and|although|though)\b", re.I
)


# a capitalised word inside a sentence: part of a name
_NAME_WORD = re.compile(r"(?<=[\w,;:()] )[A-Z][\w'-]*")


def _spans_saying(text: str, said: frozenset[str]) -> list[tuple[int, int]]:
    """Where the text's words state one of the terms `said` (start, end)."""
    return [
        (m.start(), m.end())
        for m in re.finditer(r"[\w'-]+", text)
        if words.matching(said, words.terms(m.group()))
    ]


def _parted_by_another_name(names: Sequence[str], said: frozenset[str], text: str) -> bool:
    """The text mentions a name, but another name parts each of its mentions from each word
    saying what is asked of it ("The ICRC is one part of the Movement, alongside the
    International Federation ..., founded in 1919": the Federation was founded then)."""
    lowered = text.lower()
    mentions = [
        (m.start(), m.end())
        for name in names
        for m in re.finditer(rf"(?<!\w){re.escape(name.lower())}(?!\w)", lowered)
    ]
    spots = _spans_saying(text, said)
    if not mentions or not spots:
        return False
    others = [
        m.start()
        for m in _NAME_WORD.finditer(text)
        if not any(start <= m.start() < end for start, end in mentions)
        and not words.terms(m.group()) <= words.CALENDAR_WORDS
    ]
    for start, end in mentions:
        for word_start, word_end in spots:
            low, high = (end, word_start) if end <= word_start else (word_end, start)
            if not any(low <= other < high for other in others):
                return False
    return True


def _names_a_longer(names: Sequence[str], text: str) -> bool:
    """The text names a longer thing holding a name's words, not ending with them ("the
    Forth Road Bridge" for the Forth Bridge, "the Kiel Canal" for Kiel): another thing, not
    the one asked about ("Nicolaus Copernicus" is Copernicus)."""
    found = [v.text for v in vals.values_in(text) if v.kind == vals.NAME]
    for name in names:
        own = name.lower().split()
        for longer in found:
            theirs = longer.lower().split()
            if len(theirs) > len(own) and names_in([name], longer) and theirs[-len(own) :] != own:
                return True
    return False


def _year_dates(text: str) -> list[vals.Value]:
    """The dates a text states with their year, but not in brackets: an aside on the name
    before it ("the Forth Road Bridge (opened 1964)", a life's "(16 July 1872 - 18 June
    1928)"), not the date of what the sentence says."""
    return [
        v
        for v in vals.values_in(text)
        if v.kind == vals.DATE and vals.date_parts(v)[0] and not _in_brackets(text, v)
    ]


def _in_brackets(text: str, value: vals.Value) -> bool:
    """The value is inside round brackets (or before a closing one that opened before the
    unit began)."""
    if text.count("(", 0, value.start) > text.count(")", 0, value.start):
        return True
    after = re.search(r"[()]", text[value.end :])
    return after is not None and after.group() == ")"


def _order_verdict(first: vals.Value, second: vals.Value) -> str:
    """ "yes" when the first date comes before the second, "no" when not, "" when what they
    state does not tell (1868 and 2 March 1868)."""
    for mine, theirs in zip(vals.date_parts(first), vals.date_parts(second), strict=True):
        if mine is None or theirs is None:
            return ""
        if mine != theirs:
            return "yes" if mine < theirs else "no"
    return "no"  # the same day is not before it


def _checked_verdict(question: Question, lead: Scored, listed: Sequence[Scored]) -> str:
    """Yes or no for a yes/no question that says a value is so ("are raw messages kept for
    half a year?", "tom said we keep logs 7 days. right?"): yes when a current lead (or its
    list) states that value, no when it states only others of that kind; nothing when it
    states none, or when the lead is history."""
    if not question.checked or trust(lead.source) == TRUST_HISTORY:
        return ""
    kinds = {v.kind for v in question.checked}
    stated: list[vals.Value] = []
    for scored in (lead, *listed):
        text = scored.unit.text
        found = [v for v in vals.values_in(text) if v.kind in kinds]
        # the value the question names by its own label ("P1: Response target: 15 minutes;
        # Resolution target: 4 hours": "Resolution target"), when labels tell them apart
        labels = [re.split(r":\s+", label_of(text, v).strip().rstrip(":"))[-1] for v in found]
        stated += _labelled_most(question.terms, found, labels)
    if not stated:
        return ""
    said = any(vals.same_value(c, v) for c in question.checked for v in stated)
    if lead.source.hit.canonical_status in UNDECIDED_STATUSES and not question.proposal:
        # what a draft proposes is not so yet ("do we release results after 72 hours now?":
        # no); its other lines say nothing either way
        return "no" if said and _proposes(lead) else ""
    return "yes" if said else "no"


def label_of(text: str, value: vals.Value) -> str:
    """The words that label a value in its row or sentence: those before it, back to the
    previous cell ("Response target: 30 minutes; Resolution target: 8 hours") or sentence
    ("... kept the old archive path. For ten weeks it deleted nothing": "For")."""
    return re.split(r";|(?<=[a-z0-9)][.!?])\s+(?=[A-Z])", text[: value.start])[-1]


def _labelled_most(
    terms: frozenset[str], found: Sequence[vals.Value], labels: Sequence[str]
) -> list[vals.Value]:
    """The values whose labels (`labels`, one per value) share the most of `terms`; all of
    them when no label shares any."""
    shared = [len(words.matching(terms, words.terms(label))) for label in labels]
    most = max(shared, default=0)
    return [v for v, n in zip(found, shared, strict=True) if n == most]


def _covers(terms: frozenset[str], weights: dict[str, float], scored: Scored) -> float:
    """The share of `terms` a unit states, itself or in the words around it."""
    return coverage(
        terms, weights, unit_terms(scored.unit), context_terms(scored.source, scored.unit)
    )


def _named_value(question: Question, text: str, found: Sequence[vals.Value]) -> vals.Value | None:
    """The value of a row the question names: the one whose label (the words before it)
    shares the most words with the question, or the row's last value when no label shares
    one; none when labels tie ("Response target: 30 minutes; Resolution target: 8 hours" for
    "the target")."""
    named = _named_values(question, text, found)
    return named[0] if len(named) == 1 else None


def _named_values(question: Question, text: str, found: Sequence[vals.Value]) -> list[vals.Value]:
    """The values of a row whose labels share the most words with the question (several when
    they tie), or the row's last value when no label shares one."""
    shared = [len(words.matching(question.terms, words.terms(label_of(text, v)))) for v in found]
    best = max(shared, default=0)
    if best == 0:
        return list(found[-1:])
    return [v for v, n in zip(found, shared, strict=True) if n == best]


def build_brief(
    *,
    question: Question,
    sources: Sequence[PromptSource],
    link_titles: dict[str, str] | None = None,
    earlier_terms: frozenset[str] = frozenset(),
    links: Sequence[SupersedeLink] = (),
    meaning: Callable[[Sequence[str]], Sequence[float] | None] | None = None,
    meaning_units: int = MEANING_SHORTLIST,
    corpus_weights: dict[str, float] | None = None,
    refuse_near_misses: bool = True,
    earlier_lead: str = "",
) -> EvidenceBrief:
    """The brief for one question over its numbered sources (pure: the caller fetches the
    supersede links and supplies the embedder's judgement of meaning and the corpus's word
    frequencies; `earlier_lead`: the slug of the document the answer before led with).
    `refuse_near_misses` off: the best evidence answers whatever it covers
    (a provider handed bare sources; the chat turn applies the rule)."""
    topical = _topical_rejected(sources, question.terms | earlier_terms)
    usable = [s for s in sources if s.block != "rejected" or s.hit.document_id in topical]
    # an index page's units count too (a who's-who page is one), behind the others
    # (scoring.INDEX_PAGE)
    units = _with_openings(_units(usable, link_titles or {}, question))
    rejected = tuple(s for s in sources if s.block == "rejected" and s.hit.document_id in topical)
    if not units:
        return EvidenceBrief(question=question, answerable=False, refusal="no quotable text")
    texts = [u.words for _, u in units]
    # "the brekken techs": a name typed in lower case is the name the documents write (not
    # a word capitalised because it opens a title: "as required by Lockout/tagout for ...")
    titles = sorted(
        {s.hit.title for s in usable} | set((link_titles or {}).values()), key=len, reverse=True
    )
    typed_names = words.written_as_names(
        question.text,
        (_without(u.text, titles) for _, u in units),  # read only if needed
    )
    if question.carried:
        # "when did hollin bridge go live?" then "and tenterfield?": the name the follow-up
        # types replaces the one name the question before it typed
        its_own = tuple(name for name in typed_names if words.terms(name) & question.terms)
        if its_own and len(typed_names) - len(its_own) == 1:
            typed_names = its_own
    # (not what it sets aside: "apart from quay st, ...")
    set_aside = tuple(n for n in typed_names if names_excluded(n, question.excluded))
    typed_names = tuple(n for n in typed_names if n not in set_aside)
    if typed_names or set_aside:
        question = replace(
            question,
            names=(*question.names, *typed_names),
            excluded_names=(*question.excluded_names, *set_aside),
        )
    # (a second question's words weigh only where the answer looks for its second part)
    wanted = question.terms | earlier_terms | question.then
    weights = term_weights(texts, wanted)
    subject = {
        term: weight * (RELATION_SHARE if term in question.relation else 1.0)
        for term, weight in term_weights(
            texts, wanted, corpus_weights, dict(question.surface)
        ).items()
    }
    scored = [
        score_unit(
            question=question,
            source=s,
            unit=u,
            weights=weights,
            earlier_terms=earlier_terms,
            subject_weights=subject,
        )
        for s, u in units
    ]
    scored.sort(key=lambda s: (-s.score, s.source.n, s.unit.position))
    if meaning is not None and meaning_units > 0:
        shortlist = scored[:meaning_units]
        rest = scored[meaning_units:]
        # the unit stating most of the question, with a value of the kind it asks for, is
        # judged too, wherever its score puts it
        most = max(rest, key=lambda s: s.coverage, default=None)
        if (
            most is not None
            and most.values
            and question.specific
            and most.coverage > max(s.coverage for s in shortlist)
        ):
            shortlist = [*shortlist, most]
            rest = [s for s in rest if s is not most]
        # the section heading says what a unit is about ("Decision", "Retention")
        cosines = meaning(
            [
                f"{s.unit.section}: {s.unit.text}" if s.unit.section else s.unit.text
                for s in shortlist
            ]
        )
        if cosines is not None:
            floor = min(cosines, default=0.0)
            scored = [with_meaning(s, c) for s, c in zip(shortlist, cosines, strict=True)] + [
                with_meaning(s, floor) for s in rest
            ]
            scored.sort(key=lambda s: (-s.score, s.source.n, s.unit.position))
    ranked = tuple(scored)
    # a rejected approach answers only a question about it; otherwise it is only warned about
    about = _about_rejected(question, ranked, subject)
    answering = tuple(s for s in ranked if s.source.block != "rejected" or s.document_id in about)
    if not answering:
        return EvidenceBrief(
            question=question,
            answerable=False,
            refusal="only a rejected approach mentions it",
            ranked=ranked,
            rejected=rejected,
        )
    similar = _similarity([u.words for _, u in units])
    replaced = frozenset(link.older.document_id for link in links)
    # a follow-up's answer states something of what it asks itself, not only of the turn
    # before ("and who made the call?": not the go-live row the earlier question matched)
    own = [s for s in answering if s.coverage > 0] if earlier_terms else []
    pool = own or answering
    if question.asks_change:
        # "what changed in the metal detector checks?": the rows setting revision 3 beside
        # revision 4, not "after any setting change on the detector"
        pool = [
            s for s in pool if states_change(s.unit) and s.coverage >= MIN_COVERAGE_OPEN
        ] or pool
    if question.negated and not earlier_terms:
        # what says "not" of the question's subject leads, not a "not" about anything else
        pool = [s for s in pool if says_not(s.unit) and s.coverage >= MIN_COVERAGE_OPEN] or pool
    if question.ranks and not earlier_terms:
        pool = [s for s in pool if not _ranks_otherwise(question, s.unit)] or pool
    if question.extreme and not earlier_terms:
        pool = [s for s in pool if not _bound_the_other_way(question, s.unit)] or pool
    proper = proper_names(question)
    if proper and not earlier_terms:
        # "which plate ... beneath the Atlas Mountains?": a unit about the Andes sharing more
        # of the question's words does not lead when units naming the Atlas Mountains answer
        pool = [s for s in pool if names_present(proper, s.source, s.unit)] or pool
    # "what does Hallam guarantee for Quarry Bank?": not what a unit says of the table's
    # other stations
    siblings = _siblings(question, answering)
    pool = [s for s in pool if not _of_a_sibling(question, s, siblings)] or pool
    pool = [s for s in pool if not about_another(question, s)] or pool
    if earlier_lead and question.refers_back:
        # "how long was it down?": "it" is what the answer before led with; its document
        # answers when it states the kind of value asked
        theirs = [
            s
            for s in pool
            if s.source.hit.slug == earlier_lead and (s.values or not question.specific)
        ]
        if not theirs and question.specific:
            # ...even in other words than the question's ("how long do we wait for one
            # after ordering?" of the price list's row: "Lead time (weeks): 16")
            theirs = [s for s in answering if s.source.hit.slug == earlier_lead and s.values]
        pool = theirs or pool
    lead = _pick_lead(question, pool, similar, replaced, subject)
    in_force, in_force_next = _in_force(question, lead, links, weights)
    if in_force is not None:
        lead = _best_of(in_force.document_id, question, answering) or lead
    elif question.asks_past or question.asks_current:
        lead = _from_chain(question, lead, answering, links, weights)
    lead = _superlative_row(question, lead, answering)
    # "was the trust founded before the pier opened?": the two events' dates answer
    ordered = _events_in_order(question, answering, subject) if question.in_order else None
    if ordered is not None:
        lead = ordered[0][0]
    durations = _measured_and_targets(question, answering) if question.compares else None
    compared = _compared(question, answering, durations) if durations is not None else None
    if compared is not None:
        lead = compared[0]  # "was it fixed within the target?": what was measured leads
    answerable, refusal = (
        _answerable(question, answering, earlier_terms, subject, siblings)
        if refuse_near_misses
        else (True, "")
    )
    if not answerable and ordered is not None:
        answerable, refusal = True, ""  # each event dated by a unit stating it
    if not answerable and compared is not None:
        # a measurement and the target it is held against, two curated units each stating
        # some of the question ("the SF-2 stop was a P1: the restore target, and how long was
        # it down?"), answer it together where no single unit states all of it
        answerable, refusal = True, ""
    row = (
        _earlier_row(question, answering, earlier_lead, earlier_terms, subject)
        if not answerable and earlier_lead and question.refers_back and question.specific
        else None
    )
    if row is not None:
        # "and how long have they got to get it fixed?" after a P1's response time: the row
        # the answer before led with states the other value, whatever it calls it
        lead, answerable, refusal = row, True, ""
    reasons_of: int | None = None
    if question.kind == REASON and about:
        # "why did we reject X?": X's own record says why, in its reasons, ahead of another
        # document's line that it was rejected and of its own account of the proposal
        reasons = _reasons_of(about, answering)
        if reasons:
            lead = lead if lead in reasons else reasons[0]
            reasons_of = lead.document_id
    moved_off = _moved_off(question, lead, links, weights)
    if question.kind == REASON and moved_off is not None:
        # "why did we drop X?": the record that replaced X says why, in its reasons when it
        # has a section for them ("The problem")
        newer = moved_off.newer.document_id
        reasons = _reasons_of({newer}, answering)
        lead = reasons[0] if reasons else (_best_of(newer, question, answering) or lead)
    ended = _ended(question, answering)
    if ended is not None:
        # (its own date answers: not the date the record replacing it was decided)
        lead, answerable, refusal, moved_off = ended, True, "", None
    if (in_force is not None and (not question.specific or lead.values)) or (
        moved_off is not None and moved_off.newer.since is not None
    ):
        # "what did we use for X in 2024?", "where was X in 2023?" (the record in force then
        # states a place), "when did we move off X?": X's chain answers
        answerable, refusal = True, ""
    bridge: Scored | None = None
    if question.specific and question.describes:
        # multi-hop: "the RTO for the system that fell over in the feb outage": the outage
        # names the system, another document gives that system's value. Where a unit already
        # answers, the pair leads when its bridge is of the lead's own document and together
        # they state more of the question ("who's the manager of the pumping station that
        # spilled in march?": the incident names the station, the who's-who its manager)
        bridged = _bridged(question, answering, subject, through=lead if answerable else None)
        if bridged is not None and (not answerable or bridged[2] > lead.coverage):
            lead, bridge, _ = bridged
            answerable, refusal = True, ""
    if not answerable:
        return EvidenceBrief(
            question=question,
            answerable=False,
            refusal=refusal,
            ranked=ranked,
            rejected=rejected,
            # "the login outage - what fix target applied and how long did it take?": the
            # outage's duration is here, its target may be found by a second retrieval
            unstated=_target_query(question, answering, durations) if durations else "",
        )
    symptom: Scored | None = None
    if (
        question.kind == HOWTO
        and not is_step(lead.unit, lead.source)
        and not (question.asks_current or question.asks_past)
        and trust(lead.source) > TRUST_HISTORY
        # (a row of what must never be done is no situation the steps are for)
        and not forbids(lead.unit)
    ):
        # a how-to answered by a sentence that names the situation ("Symptom: ... MES
        # OFFLINE"): the steps of the same document say what to do, unless the sentence sits
        # in a section of its own named for the situation ("Lost or stolen badges"): that
        # section says what to do, another section's steps are about something else
        steps = [
            s for s in answering if is_step(s.unit, s.source) and s.document_id == lead.document_id
        ]
        # ...those under a heading that says how to, ahead of a numbered list of when to
        steps = [s for s in steps if HOWTO_HEADING.match(s.unit.section)] or steps
        section = lead.unit.section if lead.unit.section != lead.source.hit.title else ""
        named = bool(section) and (
            coverage(question.terms, weights, words.terms(section), frozenset()) >= MIN_COVERAGE
        )
        if not steps and not named:
            # ...and where the document that names it has no steps (an incident report), the
            # steps of a procedure found beside it, when about as good (the report names the
            # situation, the runbook says what to do)
            steps = [
                s
                for s in answering
                if is_step(s.unit, s.source)
                and trust(s.source) >= trust(lead.source)
                and s.score >= lead.score - COMMAND_MARGIN
            ]
        if steps and not named:
            symptom, lead = lead, max(steps, key=lambda s: s.score)
    if question.kind in (HOWTO, YESNO) and ordered is None:
        forbidden = _forbidden_case(question, lead, answering)
        lead = forbidden or lead
    # ...and a rejected approach's reasons, when they are a list, are given whole
    as_list = _answers_with_list(question, lead, weights) or (
        reasons_of is not None and lead.unit.group >= 0
    )
    listed = (
        # the rows the question asks for, then the first of them: a long table's matching
        # rows are not cut off by the rows before them
        _rows_asked(question, lead, _list_siblings(lead, answering))[: MAX_LIST_ITEMS - 1]
        if as_list
        else ()
    )
    support: list[Scored] = [u for u in (bridge, symptom) if u is not None]
    if question.kind == HOWTO and lead.unit.kind != "code" and not forbids(lead.unit):
        command = next(
            (
                s
                for s in answering[:MAX_CONTENDERS]
                if s.unit.kind == "code" and s.score >= lead.score - COMMAND_MARGIN
            ),
            None,
        )
        if command is not None:
            support.append(command)  # a how-to answer shows its command
    if ordered is not None:
        support.extend(ordered[0][1:])  # the other event's date, right after the first's
    elif question.kind == YESNO and not question.compares:
        support.extend(_rule_around(question, lead, answering))
    if ordered is None:  # (two dated events say all a question ordering them asks)
        support.extend(_supporting(question, lead, listed, support, answering, reasons_of))
    if as_list:
        # the list is quoted as far as it answers ("which raw materials have celery in": the
        # rows with celery); its other items never come back as support
        key = _list_key(lead)
        support = [s for s in support if s.unit.group < 0 or _list_key(s) != key]
    # (a question about the past is answered by the record of its time)
    then = question.asks_past or in_force is not None or ordered is not None
    recorded = None if listed or then else _from_its_record(question, lead, answering, weights)
    if recorded is not None:
        # the same value, stated by the record the question names: that record is cited
        support = [s for s in support if s is not recorded]
        lead = recorded
    instead = None if listed or then else trusted_instead(lead, support, similar, question)
    if instead is not None:
        # a more trusted source gives the same thing another value: it leads, and the unit
        # that led is named as disagreeing with it, never quoted as the answer before it
        lead = instead
        support = [s for s in support if s is not instead and trust(s.source) >= trust(lead.source)]
    # a quote about another of the table's rows, or ranking what is asked otherwise ("the
    # highest bridge" for the lowest), is about something else: it supports nothing
    support = [
        s
        for s in support
        if not _of_a_sibling(question, s, siblings) and not _ranks_otherwise(question, s.unit)
    ]
    answer = (lead, *listed, *support)
    roles = (
        vals.roles(lead.unit.text)  # the roles of the answer's own statement
        if question.kind == PERSON and not _names_a_person((lead, *listed))
        else []
    )
    holders = _holders(question, answer, answering, roles) if roles else []
    second: Scored | None
    if compared is not None:
        # the target a measurement is held against comes right after it
        second = compared[1]
        support = [second, *(s for s in support if s.unit != second.unit)]
    else:
        second = (
            None
            if holders
            else _second_part(question, answer, answering, subject)
            or _second_hop(question, answer, answering, subject)
        )
        if second is not None and all(second.unit != s.unit for s in (*listed, *support)):
            support.append(second)
    support[:0] = holders  # "who signs it off?": the people in the roles come first
    if roles and not holders:
        unstated = _role_query(question, answer, roles)
    else:
        unstated = (
            ""
            if second is not None or holders
            else _unstated(question, answer, subject) or _then_query(question, answer)
        )
    if durations is not None and compared is None:
        # "did we make the SLA on the February outage?": the SLA is looked for next
        unstated = (
            _target_query(question, answering, durations)
            or _measured_query(question, durations)
            or unstated
        )
    # the whole chain the lead's record is in (BridgeWay -> Tessellate -> Larkspur)
    connected = {ref.document_id for ref in _chain_of(lead.document_id, links)}
    chain = tuple(link for link in links if link.older.document_id in connected)
    replaced_by = next(
        (link.newer for link in chain if link.older.document_id == lead.document_id), None
    )
    current, seen = replaced_by, {lead.document_id}
    while current is not None and current.document_id not in seen:
        seen.add(current.document_id)
        later = next(
            (link.newer for link in chain if link.older.document_id == current.document_id), None
        )
        if later is None or later.document_id in seen:
            break
        current = later
    predecessor = None
    if question.asks_past:
        predecessor = next(
            (link.older for link in chain if link.newer.document_id == lead.document_id), None
        )
    successor = _first_of(replaced_by.document_id, ranked) if replaced_by is not None else None
    now = current if current != replaced_by else None
    current_unit = _first_of(now.document_id, ranked) if now is not None else None
    quoted = current_unit or successor
    status = lead.source.hit.canonical_status
    return EvidenceBrief(
        question=question,
        answerable=True,
        lead=lead,
        listed=listed,
        as_list=as_list,
        support=_unquoted(support, (lead, *listed)),
        disagreements=_disagreements(
            question, lead, answering, similar, (earlier_terms - question.terms, subject)
        ),
        chain=chain,
        replaced_by=replaced_by,
        current=now,
        predecessor=predecessor,
        in_force=in_force,
        in_force_next=in_force_next,
        moved_off=moved_off,
        rejected=rejected,
        verdict=(ordered[1] if ordered else "")
        or _verdict(question, lead, second)
        or _checked_verdict(question, lead, listed),
        measured=bool(durations and durations[0]),
        unstated=unstated,
        successor=successor,
        current_unit=current_unit,
        when_it_goes=(
            _when_it_goes(
                question, lead, quoted, {successor.document_id, quoted.document_id}, ranked
            )
            if successor is not None and quoted is not None
            else None
        ),
        next_step=(
            _next_step(lead, ranked)
            if question.asks_current
            and status in UNDECIDED_STATUSES
            and lead.source.hit.canonical_type
            and lead.unit.kind != STATUS  # it said its status already
            else None
        ),
        ranked=ranked,
    )


def _first_of(document_id: int, ranked: Sequence[Scored]) -> Scored | None:
    return next((s for s in ranked if s.document_id == document_id), None)


def _when_it_goes(
    question: Question,
    lead: Scored,
    quoted: Scored,
    documents: set[int],
    ranked: Sequence[Scored],
) -> Scored | None:
    """For "are we still on X?": the best sentence of the records that replaced X that
    names X and then dates what it says of it ("Aquanet 6 will be switched off on 31 July
    2026"), when the one quoted does not: it says since or until when."""
    old = frozenset(
        words.matching(question.terms, words.terms(f"{lead.source.hit.title} {lead.unit.text}"))
    )
    if not old or _dated_after(frozenset(), quoted.unit.text):
        return None
    return next(
        (
            s
            for s in ranked
            if s.document_id in documents
            and s.unit != quoted.unit
            and _dated_after(old, s.unit.text)
        ),
        None,
    )


def _dated_after(named: frozenset[str], text: str) -> bool:
    """The text states a day or month (not a year alone: "(Aquanet 6, 2021)" labels a
    record), after naming one of `named` (any, when `named` is empty)."""
    return any(
        vals.date_parts(v)[1] is not None
        and (not named or words.matching(named, words.terms(text[: v.start])))
        for v in vals.values_in(text)
    )


def _next_step(lead: Scored, ranked: Sequence[Scored]) -> Scored | None:
    """The sentence beside the lead (in its passage) of an undecided record with the latest
    date (a month and year at least), when that is later than another date there: what comes
    next for it ("To go for approval in May 2026" beside "draft v0.3, 20 February 2026")."""
    dated: list[tuple[tuple[int, int, int], Scored]] = []
    for s in ranked:
        if s.source.hit.chunk_id != lead.source.hit.chunk_id:
            continue
        for value in vals.values_in(s.unit.text):
            year, month, day = vals.date_parts(value)
            if year is not None and month is not None:
                dated.append(((year, month, day or 0), s))
    if not dated:
        return None
    latest, step = max(dated, key=lambda pair: pair[0])
    if latest == min(when for when, _ in dated) or step.unit == lead.unit:
        return None
    return step


def _without(text: str, titles: Sequence[str]) -> str:
    for title in titles:
        if title:
            text = text.replace(title, " ")
    return text


def _about_rejected(
    question: Question, ranked: Sequence[Scored], subject: dict[str, float]
) -> frozenset[int]:
    """The rejected approaches a question is about ("why did we reject X?", "why can't we run
    X on TF1?", "is WhatsApp allowed for patient info?"): the title or the curated summary
    states the question's subject, or the question names its name or code. Only these answer
    it; one merely close in meaning is warned about. A question asking for a value ("how
    often do we test the metal detectors?") is about the practice, not about an alternative
    whose summary says why it was not chosen (its record states the trial's values): only
    its title or name makes it about the rejected approach. The verb relating the question to
    it ("when was X turned down?": rejected, decided) is how it asks, not what it is about."""
    about = question.terms - question.relation or question.terms
    return frozenset(
        s.document_id
        for s in ranked
        if s.source.block == "rejected"
        and (
            _names_rejected(s.source.hit.title, question.terms)
            or coverage(about, subject, words.terms(s.source.hit.title), frozenset())
            >= MIN_COVERAGE
            or (
                not question.specific
                and coverage(
                    question.terms, subject, words.terms(s.source.hit.summary), frozenset()
                )
                >= MIN_COVERAGE
            )
        )
    )


BRIDGE_VALUES = 5  # units with the asked value that may be reached through another document
BRIDGE_UNITS = 30  # ...and the best units of other documents looked at as the bridge to them
BRIDGE_SHARE = 0.25  # the bridge states at least this share of the subject the value leaves out


def _proper_names(unit: Unit) -> frozenset[str]:
    """The capitalised words of a unit that are not its sentence's first word nor a month
    or a day: the names of the things it is about ("Larkspur", "EPR")."""
    found = re.findall(r"(?<=[\w,;:()] )[A-Z][\w-]*[A-Za-z]", unit.text)
    return frozenset(words.terms(" ".join(found))) - words.CALENDAR_WORDS


def _bridged(
    question: Question,
    ranked: Sequence[Scored],
    subject: dict[str, float],
    through: Scored | None = None,
) -> tuple[Scored, Scored, float] | None:
    """A unit carrying the asked kind of value and a unit of another document that names
    the same thing (a name neither the question nor most documents state) and, together,
    state the question's subject: the value's unit leads, the bridge supports it; with the
    share of the question they state together. `through`: the unit answering so far, whose
    document is the bridge to a value in another."""
    values = [
        s
        for s in ranked
        if s.values
        and names_present(question.names, s.source, s.unit)
        and (through is None or s.document_id != through.document_id)
    ][:BRIDGE_VALUES]
    asked = question.terms
    # each possible bridge read once: its names, its own terms and those around it
    bridges = [
        (
            other,
            _proper_names(other.unit),
            unit_terms(other.unit),
            context_terms(other.source, other.unit),
        )
        for other in ranked[:BRIDGE_UNITS]
        if other.source.block != "rejected"
    ]
    best: tuple[float, Scored, Scored, float] | None = None
    for value in values:
        names = _proper_names(value.unit) - asked
        if not names:
            continue
        own = unit_terms(value.unit)
        around = context_terms(value.source, value.unit)
        left = asked - words.matching(asked, own | around)
        for other, other_names, other_own, other_around in bridges:
            if other.document_id == value.document_id or not names & other_names:
                continue
            if through is not None and other.document_id != through.document_id:
                continue
            if coverage(question.described, subject, other_own, other_around) < coverage(
                question.described, subject, own, around
            ):
                continue  # the bridge is what says the description, the value what is asked
            if coverage(left, subject, other_own, other_around) < BRIDGE_SHARE:
                continue
            together = coverage(asked, subject, own | other_own, around | other_around)
            if together < MIN_COVERAGE:
                continue
            key = together + 0.1 * (value.score + other.score)
            if best is None or key > best[0]:
                best = (key, value, other, together)
    return (best[1], best[2], best[3]) if best else None


def _answerable(
    question: Question,
    ranked: Sequence[Scored],
    earlier_terms: frozenset[str],
    subject: dict[str, float],
    siblings: dict[str, frozenset[str]],
) -> tuple[bool, str]:
    """Refuse a near-miss: no unit states the question's subject well enough, or none that
    does carries the kind of value the question asks for. A follow-up's subject is its own
    words, or those with the earlier question's ("and how long to fix it?"). A question of
    numbers alone ("35", "2024?") names no subject: every unit holding the number covers it."""
    if question.terms and all(term[:1].isdigit() for term in question.terms) and not earlier_terms:
        return False, "the question names no subject"
    held_there = _held_there(question, ranked)
    plausible = [
        s
        for s in ranked
        if (s.values or not question.specific)
        and (
            names_present(question.names, s.source, s.unit)
            or (held_there and any(vals.is_role(v) for v in s.values))
        )
        and not asks(s.unit)  # "Should haulage be medium risk?" does not say it is
    ]
    # units that say what is asked, but of another thing (another row, side, year, ...)
    of_another: list[Scored] = []
    # "what was the magnitude of the 2010 earthquake in Haiti?": where some unit says a
    # magnitude (of another earthquake), one that says none does not answer
    asked_property = question.property_asked if not earlier_terms else frozenset()
    if asked_property and not any(words.matching(asked_property, _said_around(s)) for s in ranked):
        asked_property = frozenset()
    candidates = _set_aside(
        plausible,
        lambda s: (
            _another_row_named(question, s, ranked)
            or _of_a_sibling(question, s, siblings)
            or about_another(question, s)
            or _the_other_way_round(question, s.unit.text)
            or (
                bool(asked_property)
                and s.meaning < CLOSE_MEANING
                and not words.matching(asked_property, _said_around(s))
            )
            or _says_the_opposite(question, s.unit)
        ),
        of_another,
    )
    sides = tuple(
        (group, asked)
        for group, asked in _told_apart(question.text)[0]
        if (question.superlative and question.kind in (WHAT, WHICH))
        or (group in _VARIANTS and question.kind not in (YESNO, HOWTO))
    )
    if sides and not earlier_terms:
        # "what is the smallest of Lake Baikal's islands?": where a unit says the other end
        # ("The largest of the lake's 27 islands is Olkhon"), one saying neither end (that
        # Baikal is a rift lake) does not answer; nor, beside "the high-temperature alarm is
        # set at -21 °C", does the store's set point answer when the low alarm goes off
        if any(_says_side(sides, s, other=True) for s in of_another):
            candidates = [s for s in candidates if _says_side(sides, s)]
    if not earlier_terms:
        # "how wide is the crater left by the tunguska explosion?": where its document says
        # there was none ("He expected a crater but found none"), a unit that does not name
        # the crater measures something else (the asteroid's 50 to 60 metres)
        never = _never_found(question, ranked) if candidates else {}
        if never:
            candidates = [
                s
                for s in candidates
                if words.matching(never.get(s.document_id, frozenset()), _stated_terms(s))
                == set(never.get(s.document_id, frozenset()))
            ]
            if not candidates:
                return False, "the sources say there was no such thing"
    if question.excluded and not earlier_terms:
        # "apart from quay st, which station had the most rag trips?": not "Quay Street had
        # 23 rag trips in 2025, the most of any station"
        candidates = [s for s in candidates if not _of_the_excluded(question, s)]
    if not candidates:
        return False, f"no source states a {question.kind} for it"
    if question.keeps:
        # "how long are restore test reports kept?": a unit saying something is kept (or
        # retained, stored, deleted after) for that span, not how long a restore took
        candidates = [s for s in candidates if words.matching(KEEPING, _stated_terms(s))]
        if not candidates:
            return False, "no source says how long it is kept"
    asked_years = _years(" ".join(question.names))
    done = _done_by(question)
    # the units that say the question's verb, each with where (found once, for both gates
    # below that read them)
    saying: list[tuple[Scored, list[re.Match[str]]]] = []
    if done and question.kind != YESNO and not earlier_terms:
        saying = [(s, places) for s in ranked if (places := _verb_said(done, s.unit.text))]
    if asked_years and saying:
        # "Which company did Nokia buy in 2006?": every unit saying it bought something dates
        # that to another year ("buying ... Alcatel-Lucent in 2016")
        if all(_years(s.unit.text) and not _says_year(asked_years, s) for s, _ in saying):
            return False, "no source states it for the year asked about"
    if asked_years and question.kind != YESNO:
        # "Brekken Ridge's availability in 2024?": not the row's "Availability 2025: 97.4%",
        # nor a line that names Brekken Ridge and says nothing of its availability
        asked = _asked_of_names(question)
        kept = [
            s
            for s in candidates
            if not _of_another_year(question, asked_years, s)
            and (
                # (and says something asked of it: not a lockout story of 2024 for the 2024
                # scorecard)
                (_says_year(asked_years, s) and (not asked or _says_some(asked, subject, s)))
                or (
                    # of no year, not even by its heading or title ("Vendor Scorecard 2025")
                    not (_measures(s) or _years(_with_headings(s)))
                    and (not asked or bool(words.matching(asked, _stated_terms(s))))
                )
            )
        ]
        # (of another year: "introduced in 1919" for 1930)
        kept_ids = {id(s) for s in kept}
        of_another += [
            s
            for s in candidates
            if id(s) not in kept_ids and _years(s.unit.text) and not _says_year(asked_years, s)
        ]
        candidates = kept
        if not candidates:
            return False, "no source states it for the year asked about"
    said = _predicate(question)
    if said and not earlier_terms:
        # the value must come from a unit that says what the question asks of its named
        # subject ("where was X born?"), not from one that only names the subject
        candidates = [
            s
            for s in candidates
            if s.meaning >= CLOSE_MEANING
            or words.matching(
                said,
                unit_terms(s.unit)
                | words.terms(
                    f"{s.unit.section} {s.unit.context} {s.source.hit.title} {s.source.hit.heading_path}"
                ),
            )
        ]
        if not candidates:
            return False, "no source says it of the subject the question names"
    if question.role_qualifiers and not earlier_terms:
        # "who was the consulting engineer?": not "the engineers Fowler and Baker"
        candidates = [
            s
            for s in candidates
            if words.matching(question.role_qualifiers, _said_around(s)) == question.role_qualifiers
        ]
        if not candidates:
            return False, "no source names that kind of person"
    if question.kind == PERSON and _predicate(question) and not earlier_terms:
        # "who succeeded Knudstorp as chief executive?": someone else than Knudstorp, not a
        # unit whose only person is the one the question names
        candidates = [s for s in candidates if not all(_named_by(question, v) for v in s.values)]
        if not candidates:
            return False, "no source names anyone but who the question names"
    if saying and not question.negated:
        # "when did Gresham formulate the law in its modern form?": the one unit saying the
        # verb says "He did not formulate the law in its modern form" (after a sentence on
        # Gresham), however little else it shares
        named = words.terms(" ".join(n for n in question.names if not n[:1].isdigit()))
        if all(_denied(s.unit.text, said) for s, said in saying) and any(
            named & words.terms(f"{s.unit.text} {s.unit.context}") for s, _ in saying
        ):
            return False, "the sources say the one the question names did not do it"
    if done and not earlier_terms:
        # "which orchestra did Dvořák conduct?": not "the orchestra ..., which was then
        # conducted by Bedřich Smetana"
        candidates = _set_aside(
            candidates, lambda s: _done_by_another(question, done, s.unit.text), of_another
        )
        if not candidates:
            return False, "no source says the one the question names did it"
    if question.ranks and not earlier_terms:
        # "who translated the second part?": not "Shelton's translation of the first part"
        candidates = _set_aside(
            candidates, lambda s: _ranks_otherwise(question, s.unit), of_another
        )
        if not candidates:
            return False, "no source states it of the one asked about"
        # "when did he revise it a second time?": a unit telling of it once ("In 1975 he
        # revised the forecast") does not say when it happened again
        again = {r for noun, ranks in question.ranks if noun == "time" for r in ranks} & _REPEATS
        if again:
            candidates = [s for s in candidates if _tells_again(again, s.unit.text)]
            if not candidates:
                return False, "no source says it happened again"
    if question.extreme and not earlier_terms:
        # "the shortest payment plan": not "payment plans ... for up to 24 months"
        candidates = _set_aside(
            candidates, lambda s: _bound_the_other_way(question, s.unit), of_another
        )
        if not candidates:
            return False, "the sources state only the other end of it"
    if question.negated and not earlier_terms:
        # "which route does not offer huts?": not "the Marangu route offers huts", nor a "not"
        # about something else ("could not have survived" for chapters that are not
        # digressions)
        candidates = [
            s
            for s in candidates
            if says_not(s.unit)
            and (not question.denied or words.matching(question.denied, _stated_terms(s)))
        ]
        if not candidates:
            return False, "no source says what is not so"
    if question.restricted_to and not earlier_terms:
        # "the critical potassium limit for children": not the limit under "Critical limits
        # (adults)", which says nothing of children
        candidates = [s for s in candidates if _states_restriction(question, s)]
        if not candidates:
            return False, "no source states it for what the question narrows it to"
    if question.specific:
        # "how many moons of Neptune?": not the moons the sentence says of Uranus
        candidates = [
            s
            for s in candidates
            if not s.values or not all(said_of_another(question, s.unit, v) for v in s.values)
        ]
        if not candidates:
            return False, "no source says it of the subject the question names"
    if earlier_terms:
        whole = question.terms | earlier_terms
        candidates = [
            replace(
                s,
                coverage=max(
                    s.coverage,
                    _covers(whole, subject, s),
                ),
            )
            for s in candidates
        ]
    best = max(candidates, key=lambda s: (s.coverage, s.meaning))
    if not earlier_terms and _said_of_another_instead(of_another, candidates):
        return False, "the sources say it of another thing than the one asked about"
    if best.coverage >= (MIN_COVERAGE if question.specific else MIN_COVERAGE_OPEN):
        return True, ""
    close = max(candidates, key=lambda s: s.meaning)
    if close.coverage >= MIN_COVERAGE_CLOSE and close.meaning >= CLOSE_MEANING:
        return True, ""
    return False, "no source states what the question asks about its subject"


def _of_the_excluded(question: Question, scored: Scored) -> bool:
    """The unit is about what the question sets aside: its document's title names it, or the
    unit (or its heading) names it and nothing else ("Quay Street had 23 rag trips" for
    "apart from quay st")."""
    hit = scored.source.hit
    title = words.terms(hit.title)
    if question.excluded and title and title <= question.excluded:
        return True  # (typed in lower case: "besides the arctic fox", of "Arctic fox")
    excluded = question.excluded_names
    if not excluded:
        return False
    if names_in(excluded, hit.title) and not title - question.excluded <= question.terms:
        # (not a title the question names whole: "besides Bologna itself, which towns host
        # campuses of the University of Bologna")
        return True
    if not names_in(excluded, _with_headings(scored)):
        return False
    return not any(
        v.kind == vals.NAME
        and not names_in(excluded, v.text)
        and not words.terms(v.text) <= question.excluded  # ("the drama theatre", typed)
        for v in vals.values_in(scored.unit.text)
    )


def _says_the_opposite(question: Question, unit: Unit) -> bool:
    """The unit says the word the question negates with "un" without the "un": "the most
    successful of his operas" for "which operas were unsuccessful?"."""
    said = unit_terms(unit)
    return any(
        words.matching(plain, said) and not words.matching(negated, said)
        for negated, plain in question.opposed
    )


def _set_aside(
    units: Sequence[Scored], of_another: Callable[[Scored], bool], aside: list[Scored]
) -> list[Scored]:
    """The units not said of another thing; those that are go to `aside`."""
    kept: list[Scored] = []
    for s in units:
        (aside if of_another(s) else kept).append(s)
    return kept


def _said_of_another_instead(of_another: Sequence[Scored], candidates: Sequence[Scored]) -> bool:
    """What the question asks is said, but of another thing ("its greatest width" for the
    smallest, "introduced in 1919" for 1930): a unit that states it of the thing asked about
    means what the question means about as well; one that only shares its words
    ("Leaders of the different classifications wear coloured jerseys") does not answer."""
    if not of_another:
        return False
    closest = max(of_another, key=lambda s: s.meaning)
    return all(
        closest.meaning - s.meaning >= ANOTHER_THING_MEANING and closest.coverage >= s.coverage
        for s in candidates
    )


def _done_by(question: Question) -> frozenset[str]:
    """The verb of a question asking what a thing it names did ("conduct" of "which
    orchestra did Dvořák conduct?"), as terms; empty when it asks no such thing."""
    for name in question.names:
        if name[:1].isdigit():
            continue
        found = re.search(
            rf"\b(?:did|does|do|has|have|had)\s+{re.escape(name)}\s+([a-z][\w'-]*)", question.text
        )
        if found:
            return words.terms(found.group(1))
    return frozenset()


# words denying the verb that follows them, with at most one word between: "did not
# formulate", "has never been", "was not formally"
_DENIED_BEFORE = re.compile(r"\b(?:not|never|\w+n['’]t)\s+(?:[\w-]+\s+)?$", re.I)


def _verb_said(verb: frozenset[str], text: str) -> list[re.Match[str]]:
    """Where the text says the question's verb, in any form ("conducted" of "conduct",
    "buying" of "buy")."""
    return [m for m in re.finditer(r"[\w'-]+", text) if words.form_of(m.group(0), verb)]


def _denied(text: str, said: Sequence[re.Match[str]]) -> bool:
    """Each place the text says the verb (`_verb_said`) comes after a word denying it ("He
    did not formulate the law")."""
    return all(_DENIED_BEFORE.search(text[: m.start()]) for m in said)


# a verb's agent after it: "conducted by Bedřich Smetana"
_BY_NAME = re.compile(r"\s+by\s+(?:the\s+)?([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")


def _done_by_another(question: Question, verb: frozenset[str], text: str) -> bool:
    """The text says the question's verb only as done by another name ("conducted by
    Bedřich Smetana" for "did Dvořák conduct?", "Hahn alone received the 1944 Nobel Prize"
    for "when did Lise Meitner receive a Nobel Prize?"): never of the one the question
    names, who is not named anywhere before the verb either (the sentence may say they did
    it in other words: "Sweden received ..., while France gained ...")."""
    said = _verb_said(verb, text)
    if not said:
        return False
    names = [name for name in question.names if not name[:1].isdigit()]  # (years are no agent)
    for word in said:
        agent = _BY_NAME.match(text, word.end())
        if agent is not None:
            if names_in(names, agent.group(1)):
                return False
            continue
        before = text[: word.start()]
        doer = _NAME_BEFORE.search(before)
        who = _bare_name(doer.group(1)) if doer else ""
        # (a part of a name the question names is that name: "Hahn" of "Otto Hahn"); the one
        # asked about named before ("Sweden received ..., while France gained ...") may be
        # the one the sentence says did it, in other words
        if not who or names_in(names, before) or any(names_in([who], name) for name in names):
            return False
    return True


# a name right before a verb, with at most an adverb between ("Hahn alone received")
_NAME_BEFORE = re.compile(
    r"([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)\s+(?:alone\s+|also\s+|then\s+|later\s+|\w+ly\s+)?$"
)


def _named_by(question: Question, value: vals.Value) -> bool:
    """The value is a name the question names: each of its capitalised words is a word of
    the question's names ("Vig Knudstorp" of "Jørgen Vig Knudstorp")."""
    capitalised = words.terms(" ".join(re.findall(r"\b[A-Z][\w'’-]*", value.text)))
    return bool(capitalised) and capitalised <= words.terms(" ".join(question.names))


def _tells_again(ranks: set[str], text: str) -> bool:
    """The text tells of a thing happening again: it says the rank asked ("second"), or
    "again", "once more", "another time"."""
    said = set(vals.ranked_nouns(text).get("time", frozenset()))
    return bool(said & ranks) or bool(_AGAIN.search(text))


# the ranks of a time that say it happened before ("a second time"; not "the max time", nor
# "the first" or "the last time"): the places in order values.RANK_FAMILIES spells
_REPEATS = next(f for f in vals.RANK_FAMILIES if "second" in f) - {"first", "last"}
_AGAIN = re.compile(r"\b(?:again|once more|another time)\b", re.I)


# A sentence saying a thing was never there or never found: what follows "there was no"
# ("there was no crater"), or the clause before "found none" ("He expected a crater but
# found none", "his body was never found")
_NONE_FOUND = re.compile(
    r"\b(?:there (?:is|was|are|were) no|no trace of)\s+(?P<what>(?:[\w'-]+\s+){0,2}[\w'-]+)"
    r"|\b(?:found (?:none|nothing|no)|none (?:was|were) (?:ever )?found|(?:was|were) never "
    r"(?:found|recovered|built|made))\b",
    re.I,
)


def _never_found(question: Question, ranked: Sequence[Scored]) -> dict[int, frozenset[str]]:
    """{document: the question's words (not its names) that a unit of it says there was none
    of}: a unit of that document answering must name them."""
    named = words.terms(" ".join(question.names))
    asked = question.terms - named - question.relation
    found: dict[int, frozenset[str]] = {}
    for s in ranked:
        text = s.unit.text
        for match in _NONE_FOUND.finditer(text):
            if match.group("what"):
                what = match.group("what")
            else:
                start = max(text.rfind(mark, 0, match.start()) for mark in ";:,") + 1
                what = text[start : match.start()]
            denied = frozenset(words.matching(asked, words.terms(what)))
            if denied:
                found[s.document_id] = found.get(s.document_id, frozenset()) | denied
    return found


def _bound_the_other_way(question: Question, unit: Unit) -> bool:
    """Asked for one end of a measure, the unit states its amounts only as a bound on the
    other end: "for up to 24 months" is the longest plan, not the shortest; "at least 3
    people" is the fewest, not the most."""
    other = vals.UPPER_BOUND_BEFORE if question.extreme == LEAST else vals.LOWER_BOUND_BEFORE
    amounts = [v for v in vals.values_in(unit.text) if v.kind in vals.NUMERIC_KINDS]
    return bool(amounts) and all(other.search(unit.text[: v.start]) for v in amounts)


def _ranks_otherwise(question: Question, unit: Unit) -> bool:
    """The unit ranks a noun the question ranks, but only otherwise, in the same family of
    ranks ("the first part" for "the second part", "a maximum depth" for "the average
    depth")."""
    said = vals.ranked_nouns(unit.text)
    for noun, asked in question.ranks:
        theirs = said.get(noun, frozenset())
        same_family = any(asked | theirs <= family for family in vals.RANK_FAMILIES)
        if theirs and not theirs & asked and same_family:
            return True
    return False


# Words that tell things of one kind apart: a unit saying one side of a group, and not
# the side the question says, is about another thing ("Network Supervisor, North crews"
# for the south crews' supervisor, the adults' critical limits for a child's)
TermSides = tuple[frozenset[str], ...]  # the sides of a group of `_OPPOSITES`
# the variants of a thing ("the south crews", "the low temperature alarm", "weekend cover"):
# where the documents say one, a unit saying neither does not say the other
_VARIANT_GROUPS = (
    "north northern | south southern | east eastern | west western",
    "upper | lower",
    "high highest | low lowest",
    "inbound incoming | outbound outgoing",
    "internal | external",
    "weekday weekdays | weekend weekends",
    "summer | winter",
    "adult adults | child children paediatric pediatric",
    "permanent | temporary",
    "manual manually | automatic automatically",
    "domestic | international",
    "public | private",
)
_OTHER_GROUPS = (
    # the superlatives of size, said of one thing ("its greatest width" for the smallest),
    # and the bounds they set ("maximum 8 hours" is not the shortest window)
    "largest biggest greatest longest widest maximum max | smallest shortest narrowest minimum",
    "double doubles doubled doubling | halve halves halved halving",
    "begin began begun beginning start started | end ended ending finish finished",
    "born birth | died death",
    "import imports imported | export exports exported",
    "increase increased rise rose | decrease decreased fall fell",
    # the two ends of a scale, said as superlatives ("voted the best" for the worst)
    "best | worst",
    "hottest warmest | coldest",
    "wettest | driest",
    "deepest | shallowest",
    "heaviest | lightest",
    "fastest quickest | slowest",
    "oldest | youngest newest",
    "closest nearest | farthest furthest",
    "strongest | weakest",
    "richest | poorest",
)
_OPPOSITES: tuple[TermSides, ...] = tuple(
    tuple(words.terms(side) for side in group.split("|"))
    for group in _VARIANT_GROUPS + _OTHER_GROUPS
)
_VARIANTS = frozenset(_OPPOSITES[: len(_VARIANT_GROUPS)])

# A thing told from others of its kind by a number or a capital letter after a word
# ("tier 4", "troponin T", "line 3", a model "NV-4.2", "the nv-4.2s"): lower-case in a
# question, capitalised in a document
_MARK = r"(\d{1,3}(?:\.\d{1,2})?(?=s?\b)|[a-z]\b)"
_DESIGNATED = re.compile(rf"\b([a-z]{{2,}})[ -]{_MARK}", re.I)


@lru_cache(maxsize=1024)
def _told_apart(
    text: str,
) -> tuple[tuple[tuple[TermSides, frozenset[str]], ...], tuple[tuple[str, frozenset[str]], ...]]:
    """What a question says that tells a thing from others of its kind, read once per
    question: for each group of `_OPPOSITES` it says exactly one side of, the group and that
    side (with what its frames set aside: "the lowest"); and the things it designates, each
    word with its numbers or letters ("tier" -> {"4"}), not a measure ("takes 4 hours") nor
    "a"."""
    typed = words.terms(text)
    sides: list[tuple[TermSides, frozenset[str]]] = []
    for group in _OPPOSITES:
        asked = [side for side in group if side & typed]
        if len(asked) == 1:
            sides.append((group, asked[0]))
    measured = [(v.start, v.end) for v in vals.values_in(text) if v.kind in vals.MEASURED_KINDS]
    found: dict[str, set[str]] = {}
    for match in _DESIGNATED.finditer(text):
        word, mark = match.group(1).lower(), match.group(2).upper()
        if word in words.STOPWORDS or mark == "A" or mark.isdigit() and len(mark) > 2:
            continue
        joined = text[match.end(1)] == "-"  # "nv-4.2s": a model, not 4.2 seconds
        if not joined and any(start <= match.start(2) < end for start, end in measured):
            continue
        found.setdefault(word, set()).add(mark)
    return tuple(sides), tuple((word, frozenset(marks)) for word, marks in found.items())


def about_another(question: Question, scored: Scored) -> bool:
    """The unit, with its heading and lead-in, is about another thing of the kind the
    question names: it says another side of a group of `_OPPOSITES` and not the question's
    ("North crews" for the south crews), or designates another ("Tier 1", "Tier 3" for tier
    4; "Troponin I" for troponin T) and never the question's."""
    sides, designated = _told_apart(question.text)
    if sides:
        said = _said_around(scored)
        for group, asked in sides:
            if not asked & said and any(side & said for side in group):
                return True
    unit = scored.unit
    stated = f"{unit.text} {unit.section} {unit.context}"
    for word, marks in designated:
        other = {
            match.group(1)
            for match in re.finditer(rf"\b{re.escape(word)}[ -]{_MARK}", stated, re.I)
            if match.group(0)[0].isupper()
            and (match.group(1)[0].isdigit() or match.group(1).isupper())
        }
        if other and not other & marks:
            return True
    return False


def _the_other_way_round(question: Question, text: str) -> bool:
    """The text says it of the question's two names the other way round: "Pennine sends the
    files to the Coldhurst dispatch office" for "does coldhurst send the files to pennine?"
    (one name before, the other after "to"), and never the question's way."""
    asked = _asked_direction(question.text, question.names)
    if asked is None:
        return False
    first, second = asked
    return _goes_to(second, first, text) and not _goes_to(first, second, text)


@lru_cache(maxsize=1024)
def _asked_direction(text: str, names: tuple[str, ...]) -> tuple[str, str] | None:
    """The first two of the question's names it says one "to" the other, in that order (read
    once per question, not once per unit); None when it says none so."""
    named = [n for n in names if not n[:1].isdigit()]
    for first in named:
        for second in named:
            if first != second and _goes_to(first, second, text):
                return first, second
    return None


def _goes_to(first: str, second: str, text: str) -> bool:
    """A sentence of the text names `first`, and after it "to" (or "into") `second`."""
    for sentence in re.split(r"(?<=[.;!?])\s+", text):
        to = re.search(rf"\b(?:to|into)\s+(?:the\s+)?{re.escape(second)}\b", sentence, re.I)
        if to and re.search(rf"\b{re.escape(first)}\b", sentence[: to.start()], re.I):
            return True
    return False


def _says_side(
    sides: Sequence[tuple[TermSides, frozenset[str]]], scored: Scored, *, other: bool = False
) -> bool:
    """The unit says the side of a group of `_OPPOSITES` the question asks (`sides`, from
    `_told_apart`), or with `other` another side of it and not the asked one."""
    said = _said_around(scored)
    if other:
        return any(
            not asked & said and any(side & said for side in group) for group, asked in sides
        )
    return any(asked & said for _, asked in sides)


def _states_restriction(question: Question, scored: Scored) -> bool:
    """The unit, its heading, lead-in or document says a word of each "for" phrase of the
    question (Question.restricted_to)."""
    said = _said_around(scored)
    return all(words.matching(phrase, said) for phrase in question.restricted_to)


def _said_around(scored: Scored) -> frozenset[str]:
    """What a unit says, with the words around it (`context_terms`) and the names its
    document's opening says it covers."""
    around = context_terms(scored.source, scored.unit) | words.terms(scored.source.covers)
    return unit_terms(scored.unit) | around


def _held_there(question: Question, ranked: Sequence[Scored]) -> bool:
    """Whether a role that answers who, said of every site ("the site manager of that wind
    farm"), answers for the site the question names: the evidence names that site, and who
    holds the role there is looked for next ("Tor Eriksen - Site Manager, Brekken Ridge",
    _holders)."""
    if question.kind != PERSON or not question.names:
        return False
    named = {name for other in ranked for name in names_in(question.names, other.unit.text)}
    return named == set(question.names)


def _earlier_row(
    question: Question,
    ranked: Sequence[Scored],
    earlier_lead: str,
    earlier_terms: frozenset[str],
    weights: dict[str, float],
) -> Scored | None:
    """The unit of the document the answer before led with that states more than one value
    of the kind now asked (a priority's response and restore targets) and most of what that
    answer was about (`MIN_COVERAGE` of its subject): a follow-up asking for another of them."""
    theirs = [
        (_covers(earlier_terms, weights, s), s)
        for s in ranked
        if s.source.hit.slug == earlier_lead
        and len(s.values) > 1
        and names_present(question.names, s.source, s.unit)
    ]
    share, best = max(theirs, key=lambda pair: pair[0], default=(0.0, None))
    return best if share >= MIN_COVERAGE else None


# a year on its own or opening an ISO date ("2025-11-03"), not inside a code ("FSA-2019-07")
_YEAR_IN_TEXT = re.compile(r"(?<![\w-])(?:1[5-9]|20)\d{2}(?=-\d{2}-\d{2}\b|(?![\w-]))")


def _years(text: str) -> frozenset[int]:
    return frozenset(int(year) for year in _YEAR_IN_TEXT.findall(text))


def _with_headings(scored: Scored) -> str:
    """The unit's text with its heading, lead-in and document title."""
    unit, hit = scored.unit, scored.source.hit
    return " ".join((unit.text, unit.section, unit.context, hit.title, hit.heading_path))


def _says_year(years: frozenset[int], scored: Scored) -> bool:
    """The unit, its heading, lead-in or document title states a year asked about, or a span
    of years covering it ("from 2019 to 2025"): a unit silent on the year does not say what
    held in it ("fleet availability of 97.0% per calendar year" for 2024)."""
    text = _with_headings(scored)
    spans = [(int(m.group(1)), int(m.group(2))) for m in _SPAN.finditer(text)]
    return bool(_years(text) & years) or any(
        first <= year <= last for first, last in spans for year in years
    )


def _says_some(asked: frozenset[str], weights: dict[str, float], scored: Scored) -> bool:
    """The unit, its heading, lead-in or document title says a fair share of the asked words
    (`MIN_COVERAGE_OPEN` of their weight)."""
    hit = scored.source.hit
    around = words.terms(f"{hit.title} {hit.heading_path}")
    return coverage(asked, weights, _stated_terms(scored), around) >= MIN_COVERAGE_OPEN


def _stated_terms(scored: Scored) -> frozenset[str]:
    """The words a unit says, with its heading and lead-in."""
    unit = scored.unit
    return unit_terms(unit) | words.terms(f"{unit.section} {unit.context}")


def _measures(scored: Scored) -> bool:
    """The unit states a measured value (a number, span, amount or share), not only names."""
    return any(v.kind in COMPARABLE - {vals.DATE} for v in vals.values_in(scored.unit.text))


_SPAN = re.compile(
    r"\b((?:1[5-9]|20)\d{2})\s*(?:-|–|to|until|till|and)\s*((?:1[5-9]|20)\d{2})\b", re.I
)


def _of_another_year(question: Question, years: frozenset[int], scored: Scored) -> bool:
    """The values that answer are labelled with a year, and not with the one asked about
    ("Availability 2025: 97.4%" for 2024); a span of years covers those inside it ("from 2019
    to 2025 ... 90 days" for 2021). A value without a year is of any year. The values that
    answer are those of the asked kind, or those whose labels say most of the question."""
    text = scored.unit.text
    found = [v for v in scored.values or vals.values_in(text) if v.kind in COMPARABLE - {vals.DATE}]
    asked = _asked_of_names(question)  # not the row's name
    found = _labelled_most(asked, found, [label_of(text, v) for v in found])
    if not found:
        return False
    for value in found:
        labelled = _years(label_of(text, value))
        if not labelled or any(min(labelled) <= year <= max(labelled) for year in years):
            return False
    return True


def _predicate(question: Question) -> frozenset[str]:
    """The words a specific question asks of the subject it names ("born" of "where was X
    born?"): empty when it names nothing or asks nothing but the name."""
    if not (question.specific and question.names):
        return frozenset()
    return _asked_of_names(question)


def _asked_of_names(question: Question) -> frozenset[str]:
    """The question's words other than those of the names it mentions: what it asks of them."""
    return question.terms - words.terms(" ".join(question.names))


def earlier_subject(previous_question: str) -> frozenset[str]:
    """The subject of the previous turn's question, as terms: what it was about, not what it
    asked of it ("who approved QP-05 revision 4?" then "when did it take effect?" asks when
    of QP-05 revision 4, not of its approval). An elliptical follow-up ("and at Carn Dubh?")
    is read with the question before it instead, verb and all."""
    from chat.answers.question import read_question

    if not previous_question.strip():
        return frozenset()
    earlier = read_question(previous_question)
    return earlier.terms - earlier.relation


__all__ = [
    "DocumentRef",
    "Disagreement",
    "EvidenceBrief",
    "SupersedeLink",
    "bears_on",
    "build_brief",
    "different_value",
    "earlier_subject",
    "forbids",
    "opposite_rules",
    "trust",
    "trusted_instead",
]
