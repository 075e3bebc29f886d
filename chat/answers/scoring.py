"""How well a unit answers a question: every weight of the answer engine, with its reason.

A unit's score adds what it shares with the question (IDF-weighted words, identifiers), its
meaning (the embedder's cosine), whether it carries the kind of value asked for, and its
source's rank and curation status. Its `coverage` is the stricter measure behind refusals:
the share of the question's subject it states, with its own context (heading, lead-in, the
document's title). The numbers were set on the dev halves of the gold sets
(benchmarks/answers/*/DEV.jsonl and the demo set), never on a single question.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from chat.answers import values as vals
from chat.answers.question import (
    DATE,
    DEMONYM,
    DEMONYM_ENDING,
    DURATION,
    HOWTO,
    IDENTIFIER_WORDS,
    KEEPING,
    NUMBER,
    PERSON,
    PLACE,
    REASON,
    WHAT,
    WHICH,
    YESNO,
    Question,
)
from chat.answers.units import OWNERS, Unit, asks, split_units
from chat.prompt import PromptSource
from kb import words
from kb.models import STALE_STATUSES, CanonicalStatus, CanonicalType
from kb.retrieval.types import SearchHit

# --- what the unit says -------------------------------------------------------------------
LEXICAL = 1.2  # the share of the question's IDF-weighted words the unit holds
CONTEXT_WORDS = 0.4  # ...of those only in its heading (a heading names every unit under it)
LEAD_IN_WORDS = 0.8  # ...or in the lead-in of its list or table, which says what it lists
HEADING_WORD = 0.05  # each question word in the source's title or heading path
EARLIER_SHARE = 0.5  # a follow-up's earlier subject counts half as much as its own words
MEANING = 1.2  # x cosine(question, unit): a paraphrase that shares no word still answers
VALUE_MATCH = {  # the unit carries the kind of value asked for
    DURATION: 0.45,
    NUMBER: 0.35,
    DATE: 0.4,
    PERSON: 0.4,
    PLACE: 0.3,
    WHICH: 0.3,
}
VALUE_MISSING = -0.1  # asked for a value, the unit has none
ROLE_ONLY = 0.0  # a who-question's unit naming only a role ("the line manager") answers it,
# but earns nothing over one that names nobody: a name answers it better
# a who-question's person named with a role whose words the question names ("who runs the
# Tenterfield site" - "Site manager: Priya Natarajan")
ROLE_ASKED = 0.4
DETACHED_VALUE = 0.4  # share of the bonus for a value in a clause that names nothing asked
COUNT_MATCH = 0.8  # "6 nodes" for "how many nodes": the direct answer
LABEL_MATCH = 0.3  # an item labelled with the question's word defines what it asks about
REASON_WORDS = 0.15  # "because", "due to" for a why-question
REASON_SECTION = 0.5  # a section about causes or reasons holds the reasons
MODAL = 0.2  # must / never / only / allowed: the words a yes-no rule is stated in
IDENTIFIER_OPENS = 0.9  # the unit opens with the identifier the question names (a row, a term)
IDENTIFIER_IN = 0.6  # ...or names it
IDENTIFIER_AROUND = 0.3  # ...or sits under a heading naming it
DEFINES = 0.5  # "what is X?": the unit that says "X is ..." defines it
IS_THE_KIND = 0.5  # "what X do we use?": the unit that says "Y is the X" names it
CELL_ASKED = 0.6  # a table row the question names (its first cell) with a column it names
# ("the response target for a P2": the P2 row's "Response target: 30 minutes")
STATED_VALUE = 0.6  # the unit states a value the question states ("after 2 hrs": "after 2
# hours"): as telling as naming the identifier asked
# --- what the unit is ---------------------------------------------------------------------
CODE_NOT_HOWTO = -0.3  # a code line answers how-to questions; elsewhere it is a detail
CODE_HOWTO = 0.3  # ...and a how-to question is answered by its command
STEP_HOWTO = 0.3  # ...or by the steps of a numbered list
PROCEDURE_TITLE = 1.0  # ...of the document whose title says what it asks (share of the
# question's words in the title): "how do I reset a turbine remotely?" is the remote-reset
# runbook, not a lockout step that mentions a remote reset
ALTERNATIVE_NOT_ASKED = -0.45  # an option not chosen answers only "why not" questions
POSITION = -0.005  # x the unit's place in its chunk: the opening states the point
DANGLING = -0.15  # a unit opening with a pronoun reads badly out of its paragraph
ASKS = -0.6  # a unit that is a question (an open point, an FAQ's question) states nothing
LIST_UNIT = 0.25  # a question that asks for several things is answered by a list or table
# the unit also carries the value a joined second question asks for ("who turned it down, and
# when?": "Decided on 2024-10-08 by Olav Dahl")
ALSO_ASKED = 0.2
# --- where it comes from ------------------------------------------------------------------
RANK_QUALITY = 0.4  # x retrieval's quality score of the chunk
RANK_ORDER = 0.3  # / (1 + the source's number): the first sources are retrieval's best
RELATED_BLOCK = -0.3  # graph neighbours complete an answer; they rarely carry it
INDEX_PAGE = -0.6  # index pages are lists of links, not answers
INCIDENT_NOW = -0.2  # a postmortem tells what was true then, not how things are now
ACCEPTED = 0.2  # the curated, current record
STALE_NOW = -0.5  # superseded/deprecated/archived (or a sentence revoked), for a question about now
STALE_PAST = -0.15  # ...for a question about how things used to be (quoted as history)
DECIDED = 0.3  # a paragraph's bold lead statement in an accepted record states the decision
# --- coverage (refusals) ------------------------------------------------------------------
CONTEXT_SHARE = 0.85  # a word only in the heading, lead-in or title counts a bit less

_REASON = re.compile(r"\b(because|since|so that|due to|reason|caused|rejected|without)\b", re.I)
# ...and a decision record's Context, Background or Problem section says why it was needed
_REASON_SECTION = re.compile(
    r"\b(causes?|why|reasons?|rationale|rejected|context|background|motivation|problem|drivers)\b",
    re.I,
)
_MODAL = re.compile(
    r"\b(never|must|must not|do not|don't|does not|not|no|only|forbidden|banned|allowed|"
    r"required|requires|rejected|cannot|can't|may|should|prohibited|permitted)\b",
    re.IGNORECASE,
)
_DANGLING = re.compile(r"^(it|this|that|these|they|those|he|she)\b", re.IGNORECASE)
_INCIDENT_WORDS = re.compile(
    r"\b(incident|outage|postmortem|post-mortem|caused|happened|went wrong|sev\d?|fixed|down)\b",
    re.I,
)


@dataclass(frozen=True, kw_only=True)
class Scored:
    """A unit of a source with its score and the measures behind it."""

    source: PromptSource
    unit: Unit
    score: float
    coverage: float  # share of the question's subject the unit states (with its context)
    shared: int  # question words the unit holds
    values: tuple[vals.Value, ...]  # the values of the asked kind it carries
    meaning: float = 0.0  # cosine to the question, when judged

    @property
    def document_id(self) -> int:
        return self.source.hit.document_id


def term_weights(
    texts: Iterable[str],
    wanted: Iterable[str],
    corpus: dict[str, float] | None = None,
    surface: dict[str, str] | None = None,
) -> dict[str, float]:
    """How much each question term says: its IDF over the whole knowledge base when known
    (`corpus`, by term; else over the candidate units: the topic of the retrieved units is in
    most of them, only the corpus tells that it is what the question is about), times how
    rare its word is in English (a common word is often said another way by the document)."""
    wanted = set(wanted)
    surface = surface or {}
    base: dict[str, float] = {}
    known = {term: corpus[term] for term in wanted if term in corpus} if corpus else {}
    if known:
        fallback = min(known.values())  # the text-search configuration's stop words
        base = {term: known.get(term, fallback) for term in wanted}
    else:
        texts = list(texts)
        frequency = dict.fromkeys(wanted, 0)
        for text in texts:
            for term in words.matching(wanted, words.terms(text)):
                frequency[term] += 1
        base = {term: words.idf(len(texts), df) for term, df in frequency.items()}
    return {term: w * words.english_weight(surface.get(term, term)) for term, w in base.items()}


def unit_terms(unit: Unit) -> frozenset[str]:
    """The terms a unit states: its words, and what its quantities measure ("15 m/s" states
    a speed)."""
    return words.terms(unit.words) | words.terms(unit.means) | _measures(unit.text)


@lru_cache(maxsize=65536)
def _measures(text: str) -> frozenset[str]:
    found = [
        words.measured_by(str(v.key[1]))
        for v in vals.values_in(text)
        if v.kind == vals.QUANTITY and len(v.key) > 1
    ]
    return frozenset().union(*found)


def context_terms(source: PromptSource, unit: Unit) -> frozenset[str]:
    """The words around a unit that say what it is about: heading, lead-in, title, the
    document's own summary and tags, and what its curated type makes it (a postmortem's title
    names what broke; readers call it the outage or the incident; "MD" names metal detection)."""
    hit = source.hit
    return words.terms(
        f"{unit.section} {unit.context} {unit.intro} {hit.title} {_leading_initials(hit.title)} "
        f"{hit.heading_path} {source.about} {_TYPE_NAMES.get(hit.canonical_type or '', '')}"
    )


# What a record of a curated type is, in the words readers use for it.
_TYPE_NAMES: dict[str, str] = {CanonicalType.INCIDENT.value: "incident outage postmortem"}


def record_terms(source: PromptSource) -> frozenset[str]:
    """What the document is, by its title and its curated type ("the Carn Hill incident")."""
    hit = source.hit
    return words.terms(f"{hit.title} {_TYPE_NAMES.get(hit.canonical_type or '', '')}")


# The kinds of document a reader names a record by.
DOCUMENT_KINDS = words.terms(
    "procedure procedures policy policies standard standards guide guideline guidelines "
    "runbook document documents doc docs page process rules handbook manual "
    "idea ideas"  # "the chloramine idea": a record of what was considered
)


def coverage(
    question_terms: frozenset[str],
    weights: dict[str, float],
    own: frozenset[str],
    around: frozenset[str],
    either: frozenset[str] = frozenset(),
) -> float:
    """The IDF-weighted share of the question's subject a unit states (context counts a bit
    less than its own words). The terms of `either` are ways of saying one thing (the
    relation of "who signs off X": sign, approve, decide): they weigh as their heaviest, and
    one of them stated states it. The kind of document a question names ("the lockout
    procedure") counts only where it is stated: a record's title often says another kind."""
    in_unit = words.matching(question_terms, own)
    in_context = words.matching(question_terms - in_unit, around)
    question_terms = frozenset(
        t for t in question_terms if t not in DOCUMENT_KINDS or t in in_unit or t in in_context
    )
    alternatives = question_terms & either
    single = question_terms - alternatives
    whole = sum(weights.get(t, 0.0) for t in single)
    heaviest = max((weights.get(t, 0.0) for t in alternatives), default=0.0)
    whole += heaviest
    if whole <= 0:
        return 0.0
    held = sum(weights.get(t, 0.0) for t in in_unit & single)
    held += CONTEXT_SHARE * sum(weights.get(t, 0.0) for t in in_context & single)
    if in_unit & alternatives:
        held += heaviest
    elif in_context & alternatives:
        held += CONTEXT_SHARE * heaviest
    return held / whole


def in_reason_section(source: PromptSource, unit: Unit) -> bool:
    """The unit sits in a section about causes or reasons: a section of the document or one
    it sits in, not its title (not every line under "Rejected: X" is a reason)."""
    title = source.hit.title
    sections = [
        part
        for part in (*source.hit.heading_path.split(" > "), unit.section)
        if part and part != title
    ]
    return any(_REASON_SECTION.search(part) for part in sections)


def asked_values(question: Question, unit: Unit) -> tuple[vals.Value, ...]:
    """The values of the kind the question asks for that the unit carries."""
    if unit.kind == OWNERS and question.kind == PERSON:
        # a document's curated owners, people or teams ("SRE"), answer who owns it
        start = len(unit.text) - len(unit.bare)
        return tuple(
            vals.Value(vals.NAME, owner, (owner.lower(),), start, start + len(owner))
            for owner in unit.bare.split(", ")
        )
    kinds = question.value_kinds or question.preferred_kinds
    if not kinds:
        return ()
    found = [v for v in vals.values_in(unit.text) if v.kind in kinds]
    if question.identifies:
        # "their contract number": a code with a digit written right after the word ("under
        # contract PCL-2024-03", "asset no.: EB-0412"), not an acronym, nor another thing's
        # code further on ("the contract with Brightway (see QP-07)")
        right_after = re.compile(
            rf"\b{re.escape(question.identifies)}\w*\s*(?:(?:number|no\.?|id|ref\w*)\s*)?"
            r"(?:is\s+|[:#]\s*)?$",
            re.I,
        )
        # ...or the key of a row whose column is named so ("Part no | Description | ...")
        keyed = unit.kind == "row" and bool(
            words.matching(words.terms(question.identifies), words.terms(unit.label))
        )
        found = [
            v
            for v in found
            if any(c.isdigit() for c in v.text)
            and (right_after.search(unit.text[: v.start]) or (keyed and v.start == unit.body_start))
        ]
    if not question.asks_frequency:
        # "every Monday" says how often, not when: it answers "how often", not "when"
        found = [v for v in found if not vals.recurs(unit.text, v)]
    # an answer is not the question's own subject: "Who designed the Quebec Bridge?" is not
    # answered by a sentence that names the Quebec Bridge, nor "how many transistors did the
    # 8080 have?" by the number 8080
    asked = words.terms(question.text)
    numbered = _numbered(question)
    found = [
        v
        for v in found
        if (v.kind not in (vals.NAME, vals.CODE) or not words.terms(v.text) <= asked)
        and not (numbered and (v.text in question.names or vals.is_number_name(v, unit.text)))
    ]
    if question.kind == PERSON and not question.text.lower().lstrip().startswith("whose"):
        # a person, not the heading an item is labelled with ("Abandoned Lock Removal: ...")
        label = unit.body_start
        found = [
            v
            for v in found
            if vals.is_person_like(v)
            and not vals.is_named_thing(v, unit.text)
            and v.start >= label
            and not _goes_on_as_asked(v, unit.text, question.text)
        ]
        # ...or the role that does it ("by the site manager")
        found += [
            role
            for role in vals.roles_in(unit.text)
            if role.start >= label and all(role.text not in v.text for v in found)
        ]
    if question.counted and vals.COUNT in question.value_kinds:
        # "how many guns": a count of guns, or a count in a unit that names guns
        # ...but never a count of other things ("70,000 volumes" for "how many houses")
        named = words.matching(question.counted, words.terms(unit.words))
        found = [
            v
            for v in found
            if v.kind not in (vals.COUNT, vals.DURATION)
            or words.matching(question.counted, words.terms(vals.counted_noun(v)))
            or (v.kind == vals.COUNT and named and not vals.counts_things(v))
            # "how many hours": a span in hours, not "15 minutes"
            or (v.kind == vals.DURATION and words.matching(question.counted, words.terms(v.text)))
        ]
    if question.measured_in:
        # "how many megawatts": a quantity in megawatts, not in metres
        found = [v for v in found if v.kind != vals.QUANTITY or v.key[1] == question.measured_in]
    if question.asks_year:
        found = [v for v in found if not vals.is_decade(v)]  # "which year": not "the 1940s"
    if question.asks_frequency:
        # "how often" is answered by how often (every quarter), not by how long something took
        found = [v for v in found if vals.is_frequency(v, unit.text)]
    if question.kind == DURATION:
        # "how long" is time or a length, never a speed, a temperature or a count of things
        found = [
            v
            for v in found
            if v.kind == vals.DURATION
            or str(v.key[1]) in {"m", "km", "metre", "meter", "mile"}
            or str(v.key[1]).startswith(("kilomet", "met", "feet", "ft", "mile"))
        ]
    return tuple(found)


def _goes_on_as_asked(value: vals.Value, text: str, asked: str) -> bool:
    """A name whose last word and the word after it are the question's words in that order
    ("Cherry Bakewell muffins" for "who turned down making bakewell muffins?"): it names
    part of what is asked about, not who."""
    last = value.text.split()[-1]
    after = re.match(r"\s+([\w'-]+)", text[value.end :])
    said = re.search(rf"\b{re.escape(last)}\s+([\w'-]+)", asked, re.I)
    return bool(after and said and words.terms(after.group(1)) & words.terms(said.group(1)))


def _lists_steps(hit: SearchHit) -> bool:
    """The document's numbered lists may be steps: not the record of an incident, whose
    numbered lists are its causes and actions, not what to do."""
    return hit.canonical_type != CanonicalType.INCIDENT


def is_step(unit: Unit, source: PromptSource) -> bool:
    """A step of a procedure: an item of a numbered list (units.Unit.step) of a document
    whose numbered lists may be steps."""
    return unit.step and _lists_steps(source.hit)


def holds_steps(hit: SearchHit) -> bool:
    """A retrieved chunk that holds a step of a procedure."""
    return _lists_steps(hit) and any(u.step for u in split_units(hit.text, continues=True))


def source_prior(source: PromptSource, question: Question) -> float:
    """Retrieval rank and curation status: the answer leans on the best, current source."""
    hit = source.hit
    prior = RANK_QUALITY * max(0.0, min(hit.quality_score, 1.0)) + RANK_ORDER / (1 + source.n)
    if source.block == "related":
        prior += RELATED_BLOCK
    if hit.canonical_type == CanonicalType.PROJECT_INDEX:
        prior += INDEX_PAGE
    if hit.canonical_type == CanonicalType.INCIDENT and not (
        question.asks_past or _INCIDENT_WORDS.search(question.text)
    ):
        prior += INCIDENT_NOW
    status = hit.canonical_status
    if status == CanonicalStatus.ACCEPTED:
        prior += ACCEPTED
    elif status in STALE_STATUSES:
        prior += STALE_PAST if question.asks_past else STALE_NOW
    return prior


_CLAUSE = re.compile(r"[;—()]|, (?=[a-z])|\. ")


def clause_of(unit: Unit, value: vals.Value) -> str:
    """The clause of the unit a value sits in ("First response: 15 minutes" of a P1 row)."""
    position = 0
    for clause in _CLAUSE.split(unit.text):
        position = unit.text.find(clause, position)
        if position <= value.start < position + len(clause):
            return clause
    return unit.text


_WHAT_IS = re.compile(r"^\s*what(?:['’]s|\s+is|\s+are|\s+was|\s+were)\s+\S", re.I)
_DEFINED = re.compile(r"^\s*(.{2,80}?)\s+(?:is|are|was|were|means|refers to)\s", re.I)


# "... is the SCADA platform", "... are our message queues": what follows names a kind
_IS_THE = re.compile(r"\b(?:is|are|was|were)\s+(?:the|our|a|an)\s+((?:[\w&/-]+\s*){1,4})", re.I)


def _is_the_kind(question: Question, unit: Unit) -> bool:
    """ "What SCADA platform do we use?" asks which thing is of a kind: a sentence saying
    something is that kind ("WindSight is the SCADA platform ...") names it, not one naming a
    team after the kind ("Head of SCADA & IT Platform")."""
    if question.kind != WHICH or not question.terms:
        return False
    return any(
        words.matching(question.terms, words.terms(match.group(1))) == question.terms
        for match in _IS_THE.finditer(unit.text)
    )


def _defines(question: Question, unit: Unit) -> bool:
    """ "What is X?" asks what X is: a sentence that opens with X and says it is something
    ("WindSight is the SCADA platform ...") defines it."""
    if question.kind != WHAT or question.wants_list or not _WHAT_IS.match(question.text):
        return False  # ("what are our CCPs?" asks for the list of them, not what one is)
    if not question.terms:
        return False
    opened = _DEFINED.match(unit.bare)
    if opened is None:
        return False
    defined = words.terms(opened.group(1))
    return bool(defined) and words.matching(question.terms, defined) == set(question.terms)


def _names_row_and_column(question: Question, unit: Unit) -> bool:
    """A table row whose first cell the question names, with a column every word of whose
    name the question names too: the cell where they cross answers it."""
    if unit.kind != "row" or " — " not in unit.text:
        return False
    first, cells = unit.text.split(" — ", 1)
    if not words.matching(question.terms, words.terms(first)):
        return False
    for cell in cells.split("; "):
        name = cell.split(": ", 1)[0] if ": " in cell else ""
        column = words.terms(name)
        if column and words.matching(column, question.terms) == column:
            return True
    return False


def attached(question: Question, unit: Unit, found: Sequence[vals.Value]) -> bool:
    """Whether a value sits in a clause that names the question's subject (a "6–8 s" in the
    clause about automatic failover, not the "2 min" of another step)."""
    if not found:
        return False
    starts = _clauses(unit.text)
    if len(starts) == 1:
        return True
    for value in found:
        for start, end, clause in starts:
            if start <= value.start < end and words.matching(question.terms, words.terms(clause)):
                return True
    return False


def _kind_bonus(question: Question, unit: Unit, source: PromptSource, found: Sequence) -> float:
    kind = question.kind
    if kind in VALUE_MATCH:
        if not found:
            return VALUE_MISSING
        bonus = VALUE_MATCH[kind] * (1.0 if attached(question, unit, found) else DETACHED_VALUE)
        if kind == PERSON and all(vals.is_role(v) for v in found):
            bonus *= ROLE_ONLY  # "the line manager" answers who, a name answers it better
        if kind == PERSON and _names_role_asked(question, unit, found):
            bonus += ROLE_ASKED
        return bonus
    if kind == REASON:
        bonus = REASON_WORDS if _REASON.search(unit.text) else 0.0
        return bonus + (REASON_SECTION if in_reason_section(source, unit) else 0.0)
    if kind == YESNO and question.compares:
        # "fixed within the target?": the durations (or amounts) compared answer it
        return VALUE_MATCH[DURATION] if found else 0.0
    if kind == YESNO:
        return MODAL if _MODAL.search(unit.text) else 0.0
    if kind in (WHAT, HOWTO):
        accepted = source.hit.canonical_status == CanonicalStatus.ACCEPTED
        return DECIDED if unit.decision and accepted else 0.0
    return 0.0


def _names_role_asked(question: Question, unit: Unit, found: Sequence[vals.Value]) -> bool:
    """A person named with a role the question names ("who runs the Tenterfield site?":
    "Site manager: Priya Natarajan"; not "technical manager: Jo Whitfield at Tenterfield")."""
    if not any(vals.is_person_like(v) and not vals.is_role(v) for v in found):
        return False
    subject = question.terms - question.relation
    if words.matching(subject, unit_terms(unit)) != subject:
        return False  # the site manager of another site
    for role in vals.roles_in(unit.text):
        qualifiers = words.terms(role.text) - words.terms(vals.role_noun(role))
        if qualifiers and words.matching(qualifiers, question.terms) == qualifiers:
            return True
    return False


def _identifier_bonus(identifiers: Sequence[str], text: str, around: str, kind: str) -> float:
    if not identifiers:
        return 0.0
    if kind == "title":
        return IDENTIFIER_OPENS  # the title of the document the question names
    if any(text.startswith(i) or f"— {i}" in text[:60] for i in identifiers):
        return IDENTIFIER_OPENS
    if any(i in text for i in identifiers):
        return IDENTIFIER_IN
    return IDENTIFIER_AROUND if any(i in around for i in identifiers) else 0.0


def _relation_said(question: Question, unit: Unit, found: Sequence[vals.Value]) -> frozenset[str]:
    """ "Who runs X", "who looks after X", "who is the boss of X": a unit naming a role (the
    site manager, the Head of Integration) says the relation the question's verb or role
    noun asks, in other words. Not who decided: a role is no approval. "Where is X kept?":
    a unit saying where in words ("are in the safe") says the keeping. "What's their contract
    number?": a unit stating the contract's code (`found`, its asked values) says its number."""
    if question.identifies:
        return question.terms & IDENTIFIER_WORDS if found else frozenset()
    if question.kind == PLACE:
        placed = any(v.kind == vals.LOCATION for v in vals.values_in(unit.text))
        return question.relation if placed else frozenset()
    if question.kind != PERSON or not vals.roles_in(unit.text):
        return frozenset()
    relation = question.relation if not question.decides else frozenset()
    return relation | (question.terms & vals.ROLE_NOUNS)


def score_unit(
    *,
    question: Question,
    source: PromptSource,
    unit: Unit,
    weights: dict[str, float],
    earlier_terms: frozenset[str] = frozenset(),
    subject_weights: dict[str, float] | None = None,
) -> Scored:
    """One unit's score for the question (meaning is added later, for a shortlist).
    `weights` rank units by the words they share with the question (IDF over the candidate
    units: the words that tell them apart); `subject_weights` measure how much of the
    question's subject a unit states (IDF over the corpus, times rarity in English)."""
    own = unit_terms(unit)
    around = context_terms(source, unit) | _named_in_opening(question, source)
    # a sentence's: the one its pronoun refers to; an item's: its lead-in, and the sentence
    # that announced its list
    lead_in = words.terms(f"{unit.context} {unit.intro}")
    heading_words = words.terms(unit.section)
    if question.keeps and words.matching(KEEPING, own | lead_in | heading_words):
        # "how long do we keep logs?": "Volume and retention: Hot: 30 days" states the keeping
        own = own | (question.terms & KEEPING)
    current = question.terms
    shared_own = words.matching(current, own)
    shared_lead = words.matching(current - shared_own, lead_in)
    shared = shared_own | shared_lead | words.matching(current, heading_words)
    shared_earlier = words.matching(earlier_terms, own | lead_in | heading_words)
    if question.carried and not current <= shared:
        shared_earlier = set()  # "and the trailer doors?": not a unit on the pallets asked before
    whole = sum(weights.get(t, 0.0) for t in current) + EARLIER_SHARE * sum(
        weights.get(t, 0.0) for t in earlier_terms
    )
    lexical = (
        sum(weights.get(t, 0.0) for t in shared_own)
        + LEAD_IN_WORDS * sum(weights.get(t, 0.0) for t in shared_lead)
        + CONTEXT_WORDS * sum(weights.get(t, 0.0) for t in shared - shared_own - shared_lead)
        + EARLIER_SHARE * sum(weights.get(t, 0.0) for t in shared_earlier)
    ) / max(whole, 1e-9)
    heading = words.terms(f"{source.hit.title} {source.hit.heading_path}")
    lowered = unit.text.lower()
    found = asked_values(question, unit)
    counted = 0.0
    if question.counted:
        nouns = {
            words.stem(str(v.key[1]))
            for v in vals.values_in(unit.text)
            if v.kind == vals.COUNT and len(v.key) > 1 and v.key[1]
        }
        counted = COUNT_MATCH if words.matching(question.counted, nouns) else 0.0
    score = (
        LEXICAL * lexical
        + HEADING_WORD * len(current & heading)
        + source_prior(source, question)
        + _kind_bonus(question, unit, source, found)
        + counted
        + (STATED_VALUE if _states_asked_value(question, unit) else 0.0)
        + (CELL_ASKED if _names_row_and_column(question, unit) else 0.0)
        + (DEFINES if _defines(question, unit) else 0.0)
        + (IS_THE_KIND if _is_the_kind(question, unit) else 0.0)
        + (LABEL_MATCH if words.matching(current, words.terms(unit.label)) else 0.0)
        + _identifier_bonus(
            question.identifiers, lowered, f"{unit.section} {unit.context}".lower(), unit.kind
        )
        + (CODE_NOT_HOWTO if unit.kind == "code" and question.kind != HOWTO else 0.0)
        + (CODE_HOWTO if unit.kind == "code" and question.kind == HOWTO else 0.0)
        + (STEP_HOWTO if is_step(unit, source) and question.kind == HOWTO else 0.0)
        + (
            PROCEDURE_TITLE * coverage(current, weights, heading, frozenset())
            if question.kind == HOWTO
            else 0.0
        )
        + (ALTERNATIVE_NOT_ASKED if unit.alternative and not question.asks_alternatives else 0.0)
        + (STALE_NOW if unit.revoked and not question.asks_past else 0.0)
        + POSITION * unit.position
        + (DANGLING if _DANGLING.match(unit.text) else 0.0)
        + (ASKS if asks(unit) else 0.0)
        + (LIST_UNIT if question.wants_list and unit.group >= 0 else 0.0)
        + (
            ALSO_ASKED
            if question.also_kinds
            and any(v.kind in question.also_kinds for v in vals.values_in(unit.text))
            else 0.0
        )
    )
    return Scored(
        source=source,
        unit=unit,
        score=score,
        coverage=coverage(
            current,
            subject_weights or weights,
            own | _relation_said(question, unit, found),
            around,
            either=question.relation,
        ),
        shared=len(shared | shared_earlier),
        values=found,
    )


def _named_in_opening(question: Question, source: PromptSource) -> frozenset[str]:
    """The terms of the question's names among those its document's opening lists as what
    it covers ("applies at Kestle Moor, Ambrook and ..."): each of its units is about them.
    The opening's other words are not."""
    if not question.names or not source.covers:
        return frozenset()
    named = names_in(question.names, source.covers)
    return words.terms(" ".join(named)) if named else frozenset()


# Capitalised words that qualify rather than name (Canadian, Finnish, Swedish): a nationality.
_YEAR = re.compile(
    r"^(?:1[0-9]{3}|20[0-9]{2})s?$|^(?:January|February|March|April|May|June|July|August|"
    r"September|October|November|December)$"
)


def _states_asked_value(question: Question, unit: Unit) -> bool:
    """The unit states one of the measured values the question states. (A yes-no question's
    value is the claim it checks: the unit stating another value answers it as well.)"""
    if not question.stated or question.kind == YESNO:
        return False
    return any(
        vals.same_value(mine, asked)
        for mine in vals.values_in(unit.text)
        for asked in question.stated
    )


def said_of_another(question: Question, unit: Unit, value: vals.Value) -> bool:
    """The value is said of another thing than the one the question names: the unit names
    the question's subject, but not in the value's clause, and the last name written before
    the value in its sentence is another one ("visited Uranus, ..., discovering eleven moons,
    and Neptune": the moons are Uranus's, not Neptune's). A question naming nothing in
    capitals may name a rare word that the sentence names only after the value, as what it
    compares its subject with ("the melting point of rhenium": "3,422 °C, followed among the
    metals by rhenium")."""
    text = unit.text
    if unit.kind == "row":
        return False  # (a table row's cells are said of its first: _another_row_named)
    sentence_start = text.rfind(". ", 0, value.start) + 1
    sentence, value_end = text[sentence_start:], value.end - sentence_start
    if not question.names:
        return any(
            _only_compared_after([word], sentence, value_end)
            for word in words.rare_words(question.text)
        )
    if not names_in(question.names, text):
        return False
    clause = next((c for start, end, c in _clauses(text) if start <= value.start < end), "")
    if names_in(question.names, clause):
        return False
    if _only_compared_after(question.names, sentence, value_end):
        return True
    numbered = _numbered(question)
    before = [
        v
        for v in vals.values_in(text[sentence_start : value.start])
        if v.kind == vals.NAME
        or (v.kind == vals.CODE and v.text != v.text.lower())
        or (numbered and vals.is_number_name(v, sentence))
    ]  # (a code in capitals or with a digit names a thing; "half-life" does not)
    if not before:
        return False
    # a part of a name the question names is that name ("Meitner was nominated 48 times" of
    # Lise Meitner)
    last = before[-1].text
    return not (
        names_in(question.names, last) or any(names_in([last], name) for name in question.names)
    )


# what comes right before a name a value is compared with ("ahead of", "followed among the
# metals by", "than the"): the name is not what the value is said of
_COMPARED_WITH = re.compile(
    r"\b(?:than|ahead\s+of|behind|unlike|compared\s+(?:with|to)|followed(?:\s+[\w,]+){0,4}?\s+by)"
    r"\s+(?:the\s+|a\s+|an\s+)?$",
    re.I,
)


def _only_compared_after(names: Sequence[str], sentence: str, value_end: int) -> bool:
    """Every mention of the question's names in the sentence comes after the value, as what
    the sentence compares its subject with ("With a maximum depth of 1,642 metres it is the
    deepest lake in the world, ahead of Lake Tanganyika": the depth is not Tanganyika's)."""
    mentions = [
        m.start()
        for name in names
        for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", sentence, re.I)
    ]
    return bool(mentions) and all(
        at >= value_end and _COMPARED_WITH.search(sentence[value_end:at]) for at in mentions
    )


def _numbered(question: Question) -> bool:
    """The question names a thing by a bare number after its maker's name ("the Intel 8080",
    "the Boeing 727"); not a version or a part of a code ("version 3", "IT-STD-02"). Only
    then are the bare numbers of a text read as names (`values.is_number_name`)."""
    return any(
        name.isdigit() and re.search(rf"\b[A-Z][\w'’-]*\s+{name}\b", question.text)
        for name in question.names
    )


def _clauses(text: str) -> list[tuple[int, int, str]]:
    """The clauses of a text with where each starts and ends."""
    found, position = [], 0
    for clause in _CLAUSE.split(text):
        position = text.find(clause, position)
        found.append((position, position + len(clause), clause))
    return found


def names_present(names: Sequence[str], source: PromptSource, unit: Unit) -> bool:
    """Every name and code of the question is in the unit, its heading or lead-in, or its
    document's title: the value it carries is about that subject. (Years qualify a question
    rather than name its subject; they are not required, nor are months. A nationality need
    only be said by the document; one that qualifies the kind of thing asked for is not among
    the question's names: question._qualifiers.)"""
    hit = source.hit
    around = (
        f"{unit.text} {_named_initials(unit.text)} {unit.section} {unit.context} {hit.title} "
        f"{_initials(hit.title)} {_leading_initials(hit.title)} {hit.heading_path} "
        f"{source.about} {source.covers}"
    )
    peoples = [name for name in names if DEMONYM.match(name)]
    if not all(_people_stated(name, f"{hit.title} {hit.text}") for name in peoples):
        return False
    others = [name for name in names if name not in peoples]
    missing = set(others) - names_in(others, around)
    # a person the document names in full, named again by surname ("Henry Dunant ... Dunant
    # and four other Genevans")
    return all(
        _FULL_NAME.fullmatch(name)
        and vals.is_person_like(vals.Value(vals.NAME, name, (name,), 0, len(name)))
        and names_in([name.split()[-1]], around)
        and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", hit.text)
        for name in missing
    )


# a person's name written in full: a given name and a surname ("Henry Dunant"; not "Forth
# Road Bridge", "Saltings WwTW", nor a place: values.is_person_like)
_FULL_NAME = re.compile(r"[A-ZÀ-Þ][a-zß-ÿ'’-]+\s+[A-ZÀ-Þ][a-zß-ÿ'’-]+")


# a name of several capitalised words, with the small words names hold ("International Union
# for Conservation of Nature")
_LONG_NAME = re.compile(r"\b[A-Z][\w'-]*(?:\s+(?:(?:of|for|and|the|de|du|la)\s+)*[A-Z][\w'-]*)+")


@lru_cache(maxsize=65536)
def _named_initials(text: str) -> str:
    """The initials of the long names a text writes out, which name what they name ("IUCN"
    of "the International Union for Conservation of Nature")."""
    return " ".join(_initials(re.sub(r"^The\s+", "", name)) for name in _LONG_NAME.findall(text))


def _initials(title: str) -> str:
    """The initials of a title's capitalised words, which name what it names ("ICRC" of
    "International Committee of the Red Cross"); "" for a title of fewer than two."""
    capitals = re.findall(r"\b[A-Z]", title)
    return "".join(capitals) if len(capitals) >= 2 else ""


@lru_cache(maxsize=4096)
def _leading_initials(title: str) -> str:
    """The initials of a title's first words, however it capitalises them, which name what
    the document is about ("MD" and "MDV" of "Metal detection verification")."""
    initials = "".join(
        word[0]
        for word in re.findall(r"[^\W\d_][\w'’-]*", title)
        if word.lower() not in words.STOPWORDS
    )
    return " ".join(initials[:end] for end in range(2, len(initials) + 1))


def _people_stated(demonym: str, text: str) -> bool:
    """The document says the nationality the question names, as itself or its country
    ("Swedish": Sweden; "Italian": Italy), anywhere: a sentence need not repeat it."""
    stem = re.sub(rf"{DEMONYM_ENDING}$", "", demonym)
    prefix = stem[: max(3, len(stem) - 1)]
    return re.search(rf"\b{re.escape(prefix)}[a-z]*", text) is not None


def names_in(names: Sequence[str], text: str) -> frozenset[str]:
    """The names and codes of `names` the text states (a name inside an identifier such as
    NTF_SMS_DAILY_CAP counts; a code with or without its hyphen: sf2, sf-2 and SF-2 name the
    same freezer; an identifier the question names whole, INGEST_DEDUPE_FAIL_OPEN, counts where
    it is written); a year or a month counts as stated. A one-digit number counts only where
    it is written ("category 5" is not "category 2"); a one-letter word not at all."""
    around = words.fold(text.lower()).replace("_", " ")
    found: set[str] = set()
    for name in names:
        for part in re.split(r"\s+", name):
            part = re.sub(r"(?<=\d)s$|'s$|’s$", "", part.strip(".,;:!?()\"'"))
            if (len(part) < 2 and not part.isdigit()) or _YEAR.match(part):
                continue
            part = words.fold(part.lower()).replace("_", " ")  # as the text is read
            code = re.fullmatch(r"([a-z]+)[-\s]?(\d+)", part)
            pattern = rf"{code.group(1)}[-\s]?{code.group(2)}" if code else re.escape(part)
            # (a number is not found inside a larger one: "20" in "20,000" or "20.5")
            larger = r"|[.,]\d" if part.isdigit() else ""
            if not re.search(rf"(?<![\w]){pattern}(?![\w]{larger})", around):
                break
        else:
            found.add(name)
    return frozenset(found)


def with_meaning(scored: Scored, cosine: float) -> Scored:
    """The score plus the unit's meaning (cosine to the question)."""
    return Scored(
        source=scored.source,
        unit=scored.unit,
        score=scored.score + MEANING * cosine,
        coverage=scored.coverage,
        shared=scored.shared,
        values=scored.values,
        meaning=cosine,
    )


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
