"""Conflicts between two documents, read from their passages (pure: no database).

Two passages conflict when they state a different value for the same subject: the answer
engine's rule (`chat.answers.evidence.different_value`: 35 days against 14 days, not against
5 weeks) applied to values whose subjects match, or the opposite yes/no rule
(`evidence.opposite_rules`: "only the platform team may" against "any developer can") in two
passages about the same thing.

A value's subject is the clause it stands in (a row's label and first cell, a sentence up
to its next comma or semicolon), without the values: "PITR window: 35 days of WAL on the
backup bucket" is about the PITR window of WAL on the backup bucket. Two subjects match when
each states most of the other (SAME_SUBJECT; words weighted by how much they say on their own
in English, `kb.words.english_weight`), including what they say besides the names of sites
or products they share (SAME_ATTRIBUTE), and they do not name different things of one sort
("production" / "staging Kafka cluster", "Tenterfield" / "Coldhurst").

Precision matters more than recall: a pair raised wrongly costs an editor's time. So a value
is not compared when its clause names nothing of its own (a row's bare ": 5") or it
is a stamp ("[... 08:45]") or a number naming a thing ("Priority 1"); and two values are
compared only when they are of one kind and say the same sort of thing: both how often or
both how long, both per period or neither ("1,900 calls a month" / "212 calls"), the same
things counted, one unit or currency (950 mm is not converted into 95 cm), a date only in a
part both state ("in October" agrees with "13 October 2025"). A clause of the other stating
the same value beside another is no contradiction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from chat.answers import values as vals
from chat.answers.evidence import COMPARABLE, different_value, opposite_rules
from chat.answers.units import Unit, split_units
from kb import words

# Each subject must hold this (weighted) share of the other's words: "the same thing".
SAME_SUBJECT = 0.5
# ...and the smaller of the two this share of the larger (a clause naming only "window"
# is about too many things to contradict a "PITR window").
SUBJECT_BALANCE = 0.34
# ...and what they say besides names (a site, a product) this share of each other: a row
# about a site states many things about it.
SAME_ATTRIBUTE = 0.3
# A value's clause must name at least this many content words besides the value.
MIN_SUBJECT_TERMS = 2
# A capitalised word this rare in English (kb.words.english_weight) names something: a
# site, a product, a person.
NAME_WEIGHT = 0.9
# Opposite yes/no rules: the two passages (the rule words left out) are this alike, a
# stricter bar than a value's subject (a rule has no value to pin it down).
SAME_RULE = 0.75

# Where a clause ends: a semicolon, a sentence end, a dash between words, a comma (the
# clause after "said Tom" is not about the window).
_CLAUSE_BREAK = re.compile(r";|[.!?](?:\s|$)|\s[—–-]\s|,\s")
# Words that say how a rule goes, not what it is about.
_RULE_WORDS = frozenset(
    words.terms(
        "never not no only must cannot can may allowed permitted forbidden prohibited banned "
        "any all every anyone nobody"
    )
)


@dataclass(frozen=True, kw_only=True)
class Passage:
    """A quotable unit of one document (`chat.answers.units`), with what locates it."""

    document_id: int
    text: str
    section: str = ""
    chunk_id: int | None = None
    # a table row's first cell: what each value of the row is about ("Tenterfield" in
    # "Tenterfield — Replaces: LineLog; Go-live: planned for 8 June 2026")
    row: str = ""


@dataclass(frozen=True, kw_only=True)
class Finding:
    """A passage of the record and one of the other document stating different values."""

    record: Passage
    other: Passage
    record_value: str  # as written; "" for an opposite rule
    other_value: str
    kind: str  # the values' kind (vals.DURATION, ...) or RULE
    subject: float  # how alike the two subjects are (0..1)


RULE = "rule"


def passages(
    text: str,
    *,
    document_id: int,
    section: str = "",
    chunk_id: int | None = None,
    continues: bool = False,
) -> list[Passage]:
    """The passages of a chunk a conflict can be raised on: its sentences, items and rows
    (code lines state no subject)."""
    units: Iterable[Unit] = split_units(text, section=section, continues=continues)
    return [
        Passage(
            document_id=document_id,
            text=u.text,
            section=u.section,
            chunk_id=chunk_id,
            row=(u.bare or u.text).split(" — ", 1)[0] if u.kind == "row" else "",
        )
        for u in units
        if u.kind != "code" and not u.alternative
    ]


_TOKEN = re.compile(r"[\w'’-]+")
# A number right after a capitalised word names a thing ("Priority 1 tickets", "Line 3",
# "Turbine 12"): it is part of the subject, not a value.
_NAMED_NUMBER = re.compile(r"\b[A-Z][a-z]+\s+$")


@dataclass(frozen=True)
class _Subject:
    """What a clause is about: its words (stemmed terms, weighted by how much the word as
    written says on its own) in reading order."""

    weights: dict[str, float]
    order: tuple[tuple[str, ...], ...]  # each written word's terms, in order
    names: frozenset[str] = frozenset()  # terms of rare capitalised words (Tenterfield)

    @property
    def terms(self) -> frozenset[str]:
        return frozenset(self.weights)

    def weight(self, terms: Iterable[str]) -> float:
        return sum(self.weights.get(t, 0.0) for t in terms)


def _subject(text: str) -> _Subject:
    weights: dict[str, float] = {}
    order: list[tuple[str, ...]] = []
    names: set[str] = set()
    for token in _TOKEN.findall(text):
        found = tuple(sorted(t for t in words.terms(token) if len(t) > 1 or t.isdigit()))
        order.append(found)
        weight = words.english_weight(token.lower())
        for term in found:
            weights[term] = max(weights.get(term, 0.0), weight)
        if token[:1].isupper() and weight >= NAME_WEIGHT:
            names.update(found)
    return _Subject(weights, tuple(order), frozenset(names))


def _clause(text: str, value: vals.Value) -> tuple[int, int]:
    start, end = 0, len(text)
    for match in _CLAUSE_BREAK.finditer(text):
        if match.end() <= value.start:
            start = match.end()
        elif match.start() >= value.end:
            end = match.start()
            break
    return start, end


@dataclass(frozen=True)
class _Stated:
    value: vals.Value
    subject: _Subject
    clause: tuple[int, int]


def _is_named_number(text: str, value: vals.Value) -> bool:
    return value.kind == vals.COUNT and bool(_NAMED_NUMBER.search(text[: value.start]))


def _is_stamp(text: str, value: vals.Value) -> bool:
    """A date or time in square brackets: when a chat message was sent ("[2026-03-05 09:02]"),
    not what it says."""
    after = text[value.end : value.end + 1]
    return after == "]" or text[max(0, value.start - 1) : value.start] == "["


def _stated(text: str, row: str = "") -> list[_Stated]:
    """The comparable values of a passage, each with the subject of its clause (and of its
    row, in a table)."""
    found = [
        v
        for v in vals.values_in(text)
        if v.kind in COMPARABLE and not _is_named_number(text, v) and not _is_stamp(text, v)
    ]
    out: list[_Stated] = []
    for value in found:
        start, end = _clause(text, value)
        # the clause without its values ("35 days", "EUR 180": not what it is about)
        clause = text[start:end]
        for v in sorted(found, key=lambda v: -v.start):
            if start <= v.start and v.end <= end:
                clause = clause[: v.start - start] + " " + clause[v.end - start :]
        own = [t for t in _subject(clause).terms if not t[:1].isdigit()]
        subject = _subject(f"{row} {clause}" if row and row not in clause else clause)
        content = [t for t in subject.terms if not t[:1].isdigit()]
        # the clause itself names something (not a bare ": 5" after a parenthesis)
        if own and len(content) >= MIN_SUBJECT_TERMS:
            out.append(_Stated(value, subject, (start, end)))
    return out


def _preceded(subject: _Subject) -> dict[str, tuple[str, ...]]:
    """Each term with the terms of the written word before it."""
    pairs = zip(subject.order, subject.order[1:], strict=False)
    return {term: prev for prev, cur in pairs if prev for term in cur}


def _contrast(a: _Subject, b: _Subject) -> bool:
    """The two subjects name different things of one sort: each names a place, product or
    person the other does not ("Tenterfield" / "Coldhurst"), or a shared word follows a word
    of each that the other does not say ("production Kafka cluster" / "staging Kafka
    cluster", "Priority 1 tickets" / "Priority 3 tickets")."""
    if words.matching(a.names, b.terms) != a.names and words.matching(b.names, a.terms) != b.names:
        return True
    before_a, before_b = _preceded(a), _preceded(b)
    for term, prev_a in before_a.items():
        prev_b = before_b.get(term)
        if prev_b is None or set(prev_a) & set(prev_b):
            continue
        if not words.matching(prev_a, b.terms) and not words.matching(prev_b, a.terms):
            return True
    return False


def _without(subject: _Subject, terms: frozenset[str]) -> _Subject:
    return _Subject(
        {t: w for t, w in subject.weights.items() if t not in terms},
        subject.order,
        subject.names - terms,
    )


def _shares(a: _Subject, b: _Subject) -> float:
    """The smaller of the two weighted shares each subject holds of the other's words; 0
    when one is much smaller than the other (SUBJECT_BALANCE)."""
    weight_a, weight_b = a.weight(a.terms), b.weight(b.terms)
    if not weight_a or not weight_b:
        return 0.0
    if min(weight_a, weight_b) < SUBJECT_BALANCE * max(weight_a, weight_b):
        return 0.0
    share_a = a.weight(words.matching(a.terms, b.terms)) / weight_a
    share_b = b.weight(words.matching(b.terms, a.terms)) / weight_b
    return min(share_a, share_b)


def subject_similarity(a: _Subject, b: _Subject, *, without: frozenset[str] = frozenset()) -> float:
    """How alike two subjects are (`without` these words): the smaller of the two weighted
    shares each holds of the other's words; 0 when what they say besides the names in them
    is too unlike (SAME_ATTRIBUTE: "Carn Dubh, in operation since" is not "Carn Dubh in June
    as usual") or they name different things of one sort (_contrast)."""
    if without:
        a, b = _without(a, without), _without(b, without)
    if _contrast(a, b):
        return 0.0
    whole = _shares(a, b)
    names = a.names | b.names
    if not names or not whole:
        return whole
    return whole if _shares(_without(a, names), _without(b, names)) >= SAME_ATTRIBUTE else 0.0


_RATE = re.compile(
    r"^(?:\s+[a-z-]+){0,3}?\s+(?:a|an|per|each|every)\s+"
    r"(?:day|week|month|year|hour|minute|shift|night|quarter)\b",
    re.I,
)


def _is_rate(value: vals.Value, text: str) -> bool:
    """A number per period ("1,900 calls a month", "EUR 45 per day")."""
    return bool(_RATE.match(text[value.end : value.end + 40]))


def _comparable_pair(a: vals.Value, b: vals.Value, text_a: str, text_b: str) -> bool:
    """Two values that may contradict: one kind, both a length of time or both how often
    ("daily" is no answer to "35 days"; "monthly" and "every month" are not compared, the
    value model keeps them as written), the same things counted ("6 brokers", "9 brokers"),
    amounts and measures in one currency or unit (the value model converts lengths of time,
    not 950 mm into 95 cm: those are not compared)."""
    if a.kind != b.kind:
        return False
    if a.kind == vals.QUANTITY and a.key[1:] != b.key[1:]:
        return False
    if a.kind == vals.MONEY and a.key[:1] != b.key[:1]:
        return False
    if vals.is_frequency(a, text_a) != vals.is_frequency(b, text_b):
        return False
    if a.kind == vals.DURATION and (isinstance(a.key[0], str) or isinstance(b.key[0], str)):
        return False  # how often in words ("monthly", "every month"): not normalised
    if _is_rate(a, text_a) != _is_rate(b, text_b):
        return False  # "1,900 calls a month" is no answer to "212 calls about the problem"
    if a.kind == vals.DATE:
        parts_a, parts_b = vals.date_parts(a), vals.date_parts(b)
        if any(parts_a) or any(parts_b):
            # "in October" agrees with "13 October 2025": only a part both state may differ
            pairs = zip(parts_a, parts_b, strict=True)
            return any(x is not None and y is not None and x != y for x, y in pairs)
    noun_a, noun_b = vals.counted_noun(a), vals.counted_noun(b)
    if a.kind == vals.COUNT and (noun_a or noun_b):
        # "3,120 packs" is no answer to a bare "5" (a score), nor to "6 nodes"
        return bool(words.matching(words.terms(noun_a), words.terms(noun_b)))
    return True


def conflict(record: Passage, other: Passage) -> Finding | None:
    """The conflict between a passage of the record and one of another document, if any."""
    mine, theirs = _stated(record.text, record.row), _stated(other.text, other.row)
    best: Finding | None = None
    for a in mine:
        for b in theirs:
            if not _comparable_pair(a.value, b.value, record.text, other.text):
                continue
            alike = subject_similarity(a.subject, b.subject)
            if alike < SAME_SUBJECT or (best is not None and alike <= best.subject):
                continue
            in_b = [s.value for s in theirs if s.clause == b.clause]
            if any(vals.same_value(a.value, y) for y in in_b):
                continue  # the other states this value too, beside another: no contradiction
            pair = different_value([a.value], [b.value])
            if pair is None:
                continue
            best = Finding(
                record=record,
                other=other,
                record_value=pair[0].text,
                other_value=pair[1].text,
                kind=a.value.kind,
                subject=round(alike, 3),
            )
    if best is not None or not opposite_rules(record.text, other.text):
        return best
    alike = subject_similarity(_subject(record.text), _subject(other.text), without=_RULE_WORDS)
    if alike < SAME_RULE:
        return None
    return Finding(
        record=record, other=other, record_value="", other_value="", kind=RULE, subject=alike
    )


def conflicts(record: Sequence[Passage], other: Sequence[Passage]) -> list[Finding]:
    """Every conflict between the passages of a record and those of another document, the
    most alike first; a passage of either side is in at most one."""
    found = [f for a in record for b in other if (f := conflict(a, b)) is not None]
    found.sort(key=lambda f: -f.subject)
    used: set[str] = set()
    kept: list[Finding] = []
    for finding in found:
        keys = {f"r{finding.record.text}", f"o{finding.other.text}"}
        if keys & used:
            continue
        used |= keys
        kept.append(finding)
    return kept
