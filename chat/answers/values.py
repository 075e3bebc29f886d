"""Typed values in text: durations, counts, amounts, percentages, dates, names.

A question asks for a kind of value ("how long" a duration, "who" a name); a unit that answers
carries one. Two units that state different values of the same kind about the same thing
disagree. Values are read from plain prose, tables and lists alike, and normalised so that
"35 days", "35-day" and "5 weeks" compare as the same duration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chat.answers import history
from kb.words import CALENDAR_WORDS, STOPWORDS, terms, unit_symbol

# What a question may ask for, and what a unit may carry.
DURATION = "duration"
COUNT = "count"  # a plain number, or a number of things ("6 nodes")
QUANTITY = "quantity"  # a number with a unit of measure ("15 m/s", "2,529 metres")
MONEY = "money"
PERCENT = "percent"
DATE = "date"
TIME = "time"
NAME = "name"  # a person, team, company or place: a run of capitalised words
CODE = "code"  # an acronym, a code or an identifier: JSON, SEV2, GW-4021, volatile-lru
LOCATION = "location"  # where a thing is, in words: "next to dock door 7", "on the 2nd floor"
PHONE = "phone"  # a telephone number in national or international form, or an extension
NUMERIC_KINDS = frozenset({DURATION, COUNT, QUANTITY, MONEY, PERCENT})
# the kinds that measure (a count only counts): "takes 4 hours", "400 kVA", "£50", "95%"
MEASURED_KINDS = frozenset({DURATION, QUANTITY, MONEY, PERCENT})

_NUMBER = r"\d{1,3}(?:[,\u202f ]\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?"
_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100,
    "a": 1, "an": 1, "half": 0.5,
}  # fmt: skip
# Numbers written as words count too ("a record nine times", "eleven moons"); not "one",
# "a" or "half", which are rarely a count asked for.
_COUNT_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "hundred": 100, "dozen": 12,
}  # fmt: skip
_WORD_COUNT_RE = re.compile(
    rf"\b(?P<n>{'|'.join(_COUNT_WORDS)})\b"
    r"(?:\s+(?P<noun>[a-zA-Z][a-zA-Z-]+(?:\s+[a-zA-Z][a-zA-Z-]+)?))?",
    re.IGNORECASE,
)
_SECONDS = {
    "ms": 0.001, "millisecond": 0.001, "s": 1, "sec": 1, "secs": 1, "second": 1,
    "min": 60, "mins": 60, "minute": 60, "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600,
    "d": 86400, "day": 86400, "business day": 86400, "working day": 86400, "week": 604800,
    "wk": 604800, "wks": 604800, "month": 2592000, "year": 31536000, "yr": 31536000,
    "yrs": 31536000,
}  # fmt: skip
_DURATION_UNIT = (
    r"(?:milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|min|hours?|hrs?|h|"
    r"(?:business |working )?days?|d|weeks?|wks?|months?|years?|yrs?)"
)
_NUMBER_WORD = "|".join(sorted((w for w in _WORD_NUMBERS if len(w) > 2), key=len, reverse=True))
_DURATION_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_NUMBER}|{_NUMBER_WORD}|an?(?=\s))(?:\s*(?:[–-]|to)\s*(?P<n2>{_NUMBER}))?"
    rf"(?:\s+an?\b)?[\s-]*(?P<u>{_DURATION_UNIT})(?![\w/])"
    # "6 h 10 min": a second part of the same duration
    rf"(?:\s+(?P<n3>{_NUMBER})\s*(?P<u3>{_DURATION_UNIT})(?![\w/]))?",
    re.IGNORECASE,
)
_PERIOD = r"(?:day|week|fortnight|month|quarter|year|shift|night|morning|evening|weekday|hour)"
_FREQUENCY_RE = re.compile(
    r"\b(?:hourly|daily|nightly|weekly|fortnightly|monthly|quarterly|yearly|annually|annual)\b"
    rf"|\bevery (?:other |second |working )?{_PERIOD}\b"
    rf"|\b(?:once|twice|(?:\d+|two|three|four|five|six) times) (?:a|an|per|each|every) {_PERIOD}\b",
    re.I,
)
_CURRENCY = r"(?:EUR|USD|NOK|GBP|SEK|DKK|CHF|€|\$|£|kr)"
_MONEY_RE = re.compile(
    rf"(?P<c1>{_CURRENCY})\s?(?P<n>{_NUMBER})(?:\s?(?P<m>k|m|million|bn|billion)\b)?"
    rf"|(?<![\w.])(?P<n2>{_NUMBER})(?:\s?(?P<m2>k|m|million|bn|billion))?\s?"
    r"(?P<c2>EUR|USD|NOK|GBP|SEK|DKK|CHF|euros?|dollars?|kroner|pounds|ducats)\b",
    re.IGNORECASE,
)
# a table cell or item whose label names its unit: "Unit price (EUR): 1,240"
_LABELLED_RE = re.compile(rf"\((?P<u>[^()\d:;]{{1,12}})\)\s*:\s*(?P<n>{_NUMBER})(?![\w.,]*\d)")
_PERCENT_RE = re.compile(rf"(?<![\w.])(?P<n>{_NUMBER})\s?(?:%|percent\b|per cent\b)", re.I)
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DATE_RE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\.?,?\s+\d{{4}}\b"
    rf"|\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b"
    rf"|\b(?:{_MONTHS})\.?\s+\d{{4}}\b"
    # a day and month without the year ("the week of 13 april", "April 13th")
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\b\.?"
    # ...month first, but not the verb: "you may 2x the limit"
    rf"|\b(?:(?!may\b)(?:{_MONTHS})|(?-i:May))\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?![:.,]?\d)"
    r"|\bQ[1-4]\s+\d{4}\b"
    r"|\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?\b"
    rf"|\b(?:in|by|until|before|after|from|since|every|each|on|end of|early|late|mid)\s+"
    # (not before a year: "in May 2026" is the month and year, read from the month on)
    rf"(?:{_MONTHS})\b(?!\.?,?\s+\d{{4}}\b)"
    # a year, but not one inside a code ("FSA-2019-07", "RL-2025-0412": an agreement's number)
    r"|\b(?<![A-Za-z]-)(?:1[0-9]{3}|20[0-9]{2})s?\b",
    re.IGNORECASE,
)
_TIME_RE = re.compile(r"\b\d{1,2}:\d{2}\b")
# "01632 960450", "+47 73 80 12 34", "(0161) 496 0000": a trunk 0 or a country code, then groups
# of digits (8 to 15 digits in all); "extension 4400", "ext. 5000".
_PHONE_RE = re.compile(
    r"(?<![\w.,+-])(?:\+\d{1,3}[\s-]?\(?\d{1,5}\)?|\(0\d{1,5}\)|0\d{1,5})(?:[\s-]?\d{2,4}){1,4}"
    r"(?![\w.,]?\d)"
    r"|\b(?:extension|ext\.?)\s*\**\d{3,6}\b",
    re.IGNORECASE,
)
_PHONE_DIGITS = range(8, 16)
_UNIT_RE = re.compile(
    rf"(?<![\w.])(?P<n>{_NUMBER})\s?(?P<u>°\s?[CF]|m/s|km/h|mph|kW|MW|GW|kWh|MWh|GWh|kVA|MVA|kV|V|A|Hz|"
    r"mm|cm|m|km|metres?|meters?|kilometres?|kilometers?|miles?|feet|ft|inches|in|kg|g|t|"
    r"tonnes?|tons?|lbs?|litres?|liters?|L|GB|MB|TB|KB|GiB|MiB|TiB|bar|rpm)(?![\w/])",
)
_COUNT_RE = re.compile(
    rf"(?<![\w.,:/-])(?P<n>{_NUMBER})(?:\s+(?P<noun>[a-zA-Z][a-zA-Z-]+(?:\s+[a-zA-Z][a-zA-Z-]+)?))?"
)
# Capitalised words in a row (Ingrid Solberg, Nordvik Turbines Service, Bedřich Smetana);
# a single capitalised word only where it cannot be a sentence's first word.
_NAME_WORD = r"[A-ZÀ-ÖØ-Þ][\w'’.-]*[\wÀ-ÿ]"
_NAME_RE = re.compile(rf"{_NAME_WORD}(?:\s+(?:of|de|van|von|der|da|di|la|le|&)?\s*{_NAME_WORD})+")
# A locative phrase: a preposition that only says where, and the few words after it.
_LOCATION_RE = re.compile(
    r"\b(?:(?:next to|beside|behind|in front of|opposite|near|above|below|underneath|beneath|"
    r"adjacent to|alongside)(?!\s+\d)(?:\s+[\w'’-]+){1,5}"
    r"|(?:on|at) the (?:ground|first|second|third|fourth|fifth|top|\d+(?:st|nd|rd|th)) floor"
    r"|upstairs|downstairs)\b",
    re.IGNORECASE,
)
# ...and a place said with in/at/on after a verb of being or keeping ("are in the safe in DC1",
# "stored on the shared drive"), not a time or a state ("is in force", "was on 3 May")
_KEPT_IN_RE = re.compile(
    r"\b(?:is|are|was|were|be|kept|stored|held|located|found|placed|filed|saved|hung|hangs|"
    r"sits?|lives?|mounted|installed|lies|lie)\s+(?P<place>(?:in|inside|at|on)"
    r"(?!\s+(?:\d|(?:the\s+)?(?:event|case|force|place|use|progress|effect|order|line|general|"
    r"total|addition|practice|future|past|time|morning|afternoon|evening|night|weekends?|call|"
    r"leave|risk|hold|top|least|most|first|last|all|any|each|every|this|that|these|those|which|"
    rf"what|{'|'.join(sorted(CALENDAR_WORDS))})\b))(?:\s+[\w'’-]+){{1,7}})",
    re.IGNORECASE,
)
_SINGLE_NAME_RE = re.compile(rf"(?<=[a-z,(] ){_NAME_WORD}|(?<=\()({_NAME_WORD})")


_CURRENCIES = {
    "eur": "eur", "€": "eur", "euro": "eur", "euros": "eur", "usd": "usd", "$": "usd",
    "dollar": "usd", "dollars": "usd", "gbp": "gbp", "£": "gbp", "pounds": "gbp", "nok": "nok",
    "kr": "nok", "kroner": "nok", "sek": "sek", "dkk": "dkk", "chf": "chf", "ducats": "ducat",
}  # fmt: skip
# Capitalised words that open sentences rather than names.
_NOT_NAMES = frozenset(
    """the a an this that these those in on at for from to by with of and or but if when
    while after before since until during every each all no not our we you they it its
    there here what which who how why where my your their his her""".split()
)


# an acronym or code word (JSON, SEV2, HMAC-SHA256), a snake_case or dotted name, a flag
_CODE_RE = re.compile(
    r"(?<![\w-])(?:[A-Z][A-Z0-9]{1,}(?:[-_][A-Z0-9]+)*|[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+|"
    r"[a-z]+(?:-[a-z0-9]+){1,3}|--[a-z][a-z-]+)(?![\w-])"
)


@dataclass(frozen=True)
class Value:
    kind: str
    text: str  # as written
    key: tuple[object, ...]  # normalised, for comparing two values of the same kind
    start: int
    end: int


def _number(raw: str) -> float | None:
    raw = raw.strip().lower()
    if raw in _WORD_NUMBERS:
        return float(_WORD_NUMBERS[raw])
    digits = raw.replace("\u202f", "").replace(" ", "")
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", digits):
        digits = digits.replace(",", "")
    else:
        digits = digits.replace(",", ".")
    try:
        return float(digits)
    except ValueError:
        return None


def _seconds(unit: str) -> float:
    unit = unit.lower()
    if unit in _SECONDS:
        return _SECONDS[unit]
    return _SECONDS.get(unit.rstrip("s"), 0.0)


def _scale(multiplier: str | None) -> float:
    return {"k": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}.get(
        (multiplier or "").lower(), 1.0
    )


def measure_unit(unit: str) -> str:
    """A unit of measure as one key, by its symbol where it has one ("kilometres", "km" ->
    "km"; "MW" -> "mw"), else its singular ("bars" -> "bar")."""
    unit = unit.lower().strip()
    symbol = unit_symbol(unit)
    if symbol:
        return symbol
    return (
        unit[:-1] if unit.endswith("es") or unit[-2:-1].isalpha() and unit.endswith("s") else unit
    )


def _counted_words(noun: str) -> str:
    """The words after a count up to the first stop word ("RLU or" -> "RLU")."""
    kept: list[str] = []
    for word in noun.split():
        if word.lower() in STOPWORDS:
            break
        kept.append(word)
    return " ".join(kept)


def values_in(text: str) -> list[Value]:
    """Every typed value in `text`, in reading order; a span claimed by a more specific
    kind (a duration, an amount, a date) is not read again as a plain number."""
    found: list[Value] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    def add(kind: str, match: re.Match[str], key: tuple[object, ...]) -> None:
        if free(match.start(), match.end()):
            found.append(Value(kind, match.group(0).strip(), key, match.start(), match.end()))
            taken.append((match.start(), match.end()))

    for match in _PHONE_RE.finditer(text):
        digits = re.sub(r"\D", "", match.group(0))
        if match.group(0)[0].isalpha() or len(digits) in _PHONE_DIGITS:
            add(PHONE, match, (digits,))
    for match in _DATE_RE.finditer(text):
        add(DATE, match, (match.group(0).lower().replace(",", ""),))
    for match in _LABELLED_RE.finditer(text):  # "Unit price (EUR): 1,240", "Lead time (weeks): 6"
        amount = _number(match.group("n"))
        unit = match.group("u").strip().lower()
        said = text[match.start("n") :]
        if amount is None or any(r.match(said) for r in (_DURATION_RE, _UNIT_RE, _PERCENT_RE)):
            continue  # the number says its own unit: "Hot (OpenSearch): 30 days"
        span = (match.start("n"), match.end("n"))
        if unit in _CURRENCIES:
            value = Value(MONEY, match.group("n"), (_CURRENCIES[unit], amount), *span)
        elif _seconds(unit):
            value = Value(
                DURATION, f"{match.group('n')} {unit}", (amount * _seconds(unit), None), *span
            )
        else:
            value = Value(
                QUANTITY, f"{match.group('n')} {unit}", (amount, measure_unit(unit)), *span
            )
        found.append(value)
        taken.append(span)
    for match in _MONEY_RE.finditer(text):
        amount = _number(match.group("n") or match.group("n2") or "")
        if amount is not None:
            currency = _CURRENCIES.get((match.group("c1") or match.group("c2") or "").lower(), "")
            multiplier = match.group("m") or match.group("m2")
            add(MONEY, match, (currency[:3], amount * _scale(multiplier)))
    for match in _PERCENT_RE.finditer(text):
        amount = _number(match.group("n"))
        if amount is not None:
            add(PERCENT, match, (amount,))
    for match in _FREQUENCY_RE.finditer(text):
        add(DURATION, match, (match.group(0).lower(),))
    for match in _DURATION_RE.finditer(text):
        amount = _number(match.group("n"))
        if amount is None:
            continue
        seconds = amount * _seconds(match.group("u"))
        if match.group("n3"):
            extra = _number(match.group("n3"))
            seconds += (extra or 0.0) * _seconds(match.group("u3"))
        upper = _number(match.group("n2")) if match.group("n2") else None
        key = (round(seconds, 3), round(upper * _seconds(match.group("u")), 3) if upper else None)
        add(DURATION, match, key)
    for match in _TIME_RE.finditer(text):
        add(TIME, match, (match.group(0),))
    for match in _UNIT_RE.finditer(text):
        amount = _number(match.group("n"))
        if amount is not None:
            add(QUANTITY, match, (amount, measure_unit(match.group("u"))))
    for match in _COUNT_RE.finditer(text):
        amount = _number(match.group("n"))
        if amount is None:
            continue
        noun = _counted_words(match.group("noun") or "").lower()
        start, end = match.start("n"), match.end("n")
        if free(start, end):
            text_of = f"{match.group('n')} {noun}" if noun else match.group("n")
            found.append(Value(COUNT, text_of, (amount, noun), start, end))
            taken.append((start, end))
    for match in _WORD_COUNT_RE.finditer(text):
        start, end = match.start("n"), match.end("n")
        if free(start, end):
            amount = float(_COUNT_WORDS[match.group("n").lower()])
            noun = (match.group("noun") or "").lower()
            text_of = f"{match.group('n')} {noun}" if noun else match.group("n")
            found.append(Value(COUNT, text_of, (amount, noun), start, end))
            taken.append((start, end))
    for pattern in (_NAME_RE, _SINGLE_NAME_RE):
        for match in pattern.finditer(text):
            tokens = list(re.finditer(r"\S+", match.group(0)))
            while tokens and tokens[0].group(0).lower() in _NOT_NAMES:
                tokens = tokens[1:]
            if not tokens or not any(ch.islower() for ch in tokens[-1].group(0)):
                continue  # a sentence opening, or an acronym (PITR, ROC): not a name
            if len(tokens) == 1 and tokens[0].group(0).lower() in CALENDAR_WORDS:
                continue  # "between May and July": a time, not a name
            # words apart by any white space (a tab, a line break) are one name
            name = " ".join(token.group(0) for token in tokens)
            start = match.start() + tokens[0].start()
            if free(start, match.end()):
                found.append(Value(NAME, name, (name.lower(),), start, match.end()))
                taken.append((start, match.end()))
    for match in _CODE_RE.finditer(text):
        if free(match.start(), match.end()):
            found.append(
                Value(CODE, match.group(0), (match.group(0).lower(),), match.start(), match.end())
            )
            taken.append((match.start(), match.end()))
    for match in _LOCATION_RE.finditer(text):
        # a place in words may hold a name or a number ("next to dock door 7"): it overlaps
        # them rather than taking their span
        phrase = re.split(r"\s+(?:and|but|or|which|where|so)\b", match.group(0))[0]
        found.append(
            Value(LOCATION, phrase, (phrase.lower(),), match.start(), match.start() + len(phrase))
        )
    for match in _KEPT_IN_RE.finditer(text):
        phrase = re.split(r"\s+(?:and|but|or|which|where|so|if|when|until|for)\b", match["place"])[
            0
        ]
        start = match.start("place")
        if not any(v.kind == LOCATION and v.start <= start < v.end for v in found):
            found.append(Value(LOCATION, phrase, (phrase.lower(),), start, start + len(phrase)))
    found.sort(key=lambda value: value.start)
    return found


# The last word of a name that names a place, not a person or a team ("Riverside General
# Hospital", "Estates Building", "Harbour Road")
_PLACE_HEADS = frozenset(
    "hospital hospitals clinic centre center school university college building house hall "
    "street road avenue lane square park station airport harbour port bakery farm hotel church "
    "castle city town county island lake river mountain hill ward yard estate campus".split()
)


# The last word of a name that names a body of people, which answers who decided or approved
# ("the Digital Design Authority", "the Change Advisory Board")
_GROUP_HEADS = frozenset(
    "authority authorities board committee council panel team group forum office department "
    "service services unit desk trust partnership commission assembly court cabinet".split()
)
_THE_BEFORE = re.compile(r"\bthe\s+$", re.I)
_PLACED_BEFORE = re.compile(r"\b(?:in|at|near)\s+$", re.I)
# ...and a title a person's name opens with ("the Emperor Frederick Barbarossa")
_TITLES = frozenset(
    "emperor empress king queen prince princess pope tsar sultan duke duchess earl count "
    "countess lord lady sir dame saint president general admiral captain colonel bishop "
    "archbishop cardinal professor doctor dr".split()
)


# Words that rank a thing among others of its kind: its place in order ("the second part"),
# or which of its measures ("the average depth"); each family, with its spellings.
_RANKS = {
    "first": "first", "second": "second", "third": "third", "fourth": "fourth",
    "fifth": "fifth", "sixth": "sixth", "last": "last", "final": "last",
    "maximum": "maximum", "max": "maximum", "minimum": "minimum", "min": "minimum",
    "average": "average", "mean": "average",
    # a superlative and its opposite ("the shortest tributary" is not "the longest")
    "largest": "largest", "biggest": "largest", "smallest": "smallest",
    "highest": "highest", "tallest": "highest", "lowest": "lowest",
    "longest": "longest", "shortest": "shortest", "deepest": "deepest",
    "shallowest": "shallowest", "oldest": "oldest", "youngest": "youngest",
    "earliest": "earliest", "latest": "latest", "fastest": "fastest", "slowest": "slowest",
    "heaviest": "heaviest", "lightest": "lightest",
}  # fmt: skip
RANK_FAMILIES = (
    frozenset({"first", "second", "third", "fourth", "fifth", "sixth", "last"}),
    frozenset({"maximum", "minimum", "average"}),
    frozenset({"largest", "smallest"}),
    frozenset({"highest", "lowest"}),
    frozenset({"longest", "shortest"}),
    frozenset({"deepest", "shallowest"}),
    frozenset({"oldest", "youngest"}),
    frozenset({"earliest", "latest"}),
    frozenset({"fastest", "slowest"}),
    frozenset({"heaviest", "lightest"}),
)
_RANKED = re.compile(rf"\b((?i:{'|'.join(_RANKS)}))\s+(?:[A-Z][\w'’-]*\s+)?([a-z][a-z-]+)")


def ranked_nouns(text: str) -> dict[str, frozenset[str]]:
    """The nouns a text ranks, with the ranks it gives each ("the first English version of
    the first part": version and part, first): a noun as its term."""
    found: dict[str, set[str]] = {}
    for match in _RANKED.finditer(text):
        noun = sorted(terms(match.group(2)))
        if noun:
            found.setdefault(noun[0], set()).add(_RANKS[match.group(1).lower()])
    return {noun: frozenset(ranks) for noun, ranks in found.items()}


def is_named_thing(value: Value, text: str) -> bool:
    """A name that names no person: one written after "in", "at" or "near" is a place's or a
    firm's ("a branch in Buenos Aires"); one written after "the" is a thing's ("signed the
    Magna Charta Universitatum"), unless it names a role or a body of people ("the Head of
    Integration", "the Digital Design Authority") or opens with a title ("the Emperor
    Frederick Barbarossa"). "The poet Petrarch" puts a noun between them."""
    if value.kind != NAME:
        return False
    before = text[max(0, value.start - 8) : value.start]
    if _PLACED_BEFORE.search(before):
        return True
    if not _THE_BEFORE.search(before):
        return False
    parts = value.text.split()
    last = re.sub(r"['’]s?$", "", parts[-1].lower())
    return last not in _GROUP_HEADS and parts[0].lower() not in _TITLES and not is_role(value)


def is_number_name(value: Value, text: str) -> bool:
    """A bare number written as a thing's name ("the 4004 of 1971"): a count of nothing
    after "the"."""
    return (
        value.kind == COUNT
        and value.text.isdigit()
        and bool(_THE_BEFORE.search(text[max(0, value.start - 5) : value.start]))
    )


def is_person_like(value: Value) -> bool:
    """A name of two or more words (Anton Seidl, Incident Commander): who-questions are not
    answered by a place or a country (Canada), nor by a name that ends in a kind of place
    (Riverside General Hospital)."""
    if value.kind != NAME:
        return False
    parts = value.text.split()
    if any(ch.isdigit() for ch in value.text):
        return False  # a model or a code ("Lockheed SR-71 Blackbird"), not a person
    return len(parts) >= 2 and re.sub(r"['’]s?$", "", parts[-1].lower()) not in _PLACE_HEADS


def counted_noun(value: Value) -> str:
    """The words after a count ("6 nodes", "3 remote resets"); "" for a bare number."""
    return str(value.key[1]) if value.kind == COUNT and len(value.key) > 1 else ""


_NEXT_WORD = re.compile(r"\s*([a-z][a-z-]*)")


def is_attributive(value: Value, text: str) -> bool:
    """A span or measure that names a kind of thing ("10 minute averages", "the 72-hour
    release", "1-second data"): its unit is singular and a word follows it. A value stated as
    such ("kept for 90 days", "within 2 hours") ends in a plural or ends the phrase."""
    if value.kind not in NUMERIC_KINDS or value.kind == COUNT:
        return False
    unit = value.text.split()[-1].split("-")[-1].lower()
    if not unit.isalpha() or re.fullmatch(rf"[a-z]+{PLURAL_ENDING}", unit):
        return False
    following = _NEXT_WORD.match(text, value.end)
    return following is not None and following.group(1) not in STOPWORDS


# A plural's ending: an -s that is not -ss, -us or -is (volumes, not loss, bus, analysis).
PLURAL_ENDING = r"(?<!ss)(?<!us)(?<!is)s"
_PLURAL_NOUN = re.compile(rf"[a-z]{{3,}}{PLURAL_ENDING}")


def counts_things(value: Value) -> bool:
    """The count names what it counts with a plural noun ("70,000 volumes"), not an
    adjective ("eleven previously unknown ...") or nothing ("Beds: 450")."""
    noun = counted_noun(value).split()
    return bool(noun) and bool(_PLURAL_NOUN.fullmatch(noun[-1]))


_DECADE = re.compile(r"\b\d{3}0s\b")


def is_decade(value: Value) -> bool:
    """A decade ("the 1940s"): no answer to "in which year"."""
    return value.kind == DATE and bool(_DECADE.search(value.text))


# A value written as a limit or a bound, not a measurement: "within 2 hours", "no more than
# 4 hours", "up to 30 minutes", "waited more than 30 minutes", "at least 2 people".
LIMIT_BEFORE = re.compile(
    r"\b(?:within|under|inside|no (?:more|later|less) than|not (?:more|less) than|"
    r"at (?:the )?most|up to|maximum(?: of)?|max\.?|less than|fewer than|before|more than|"
    r"longer than|shorter than|at least|over|above|below|beyond)\s*$",
    re.I,
)

# ...of which the most a value may be ("up to 24 months") and the least ("at least 3 people")
UPPER_BOUND_BEFORE = re.compile(
    r"\b(?:up to|at (?:the )?most|no more than|not more than|maximum(?: of)?|max\.?|"
    r"less than|fewer than)\s*$",
    re.I,
)
LOWER_BOUND_BEFORE = re.compile(
    r"\b(?:at least|no less than|not less than|no fewer than|minimum(?: of)?|min\.?|"
    r"more than)\s*$",
    re.I,
)


def same_value(a: Value, b: Value) -> bool:
    """Whether two values of one kind say the same (35 days == 5 weeks)."""
    if a.kind != b.kind:
        return False
    if a.kind == NAME:
        return a.key[0] in str(b.key[0]) or b.key[0] in str(a.key[0])  # type: ignore[operator]
    if a.kind == COUNT:
        return a.key[0] == b.key[0]
    return a.key == b.key


def date_parts(value: Value) -> tuple[int | None, int | None, int | None]:
    """(year, month, day) as far as a date states them ("in October" -> (None, 10, None),
    "13 October 2025" -> (2025, 10, 13), "2025-10-13" likewise); (None, None, None) for a
    weekday, a quarter or a decade."""
    text = value.text.lower()
    if value.kind != DATE or is_decade(value) or re.search(r"\bq[1-4]\b|day", text):
        return None, None, None
    iso = re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", text)
    if iso:
        return int(iso.group(1)), int(iso.group(2)), int(iso.group(3))
    year = re.search(r"\b(\d{4})\b", text)
    month = re.search(rf"\b({_MONTHS})\b", text)
    day = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\b(?!\d)", re.sub(r"\b\d{4}\b", " ", text))
    return (
        int(year.group(1)) if year else None,
        history.month_number(month.group(1)) if month else None,
        int(day.group(1)) if day and month else None,
    )


def duration_seconds(value: Value) -> float | None:
    """A duration's length in seconds (the upper end of a range), None for a frequency word."""
    if value.kind != DURATION or not isinstance(value.key[0], float | int):
        return None
    upper = value.key[1] if len(value.key) > 1 else None
    return float(upper) if isinstance(upper, float | int) else float(value.key[0])


# "every 2 hours", "each 6 months": a length of time that says how often
# "every 6 months", "twice a year", and a check due "within the last 6 months"
_EVERY = re.compile(r"\b(?:every|each|per|a|an|(?:within|in) the (?:last|past))\s+$", re.I)


def is_frequency(value: Value, text: str) -> bool:
    """The value says how often (quarterly, every quarter, twice a year, every 2 hours)."""
    if value.kind != DURATION:
        return False
    return isinstance(value.key[0], str) or bool(
        _EVERY.search(text[max(0, value.start - 20) : value.start])
    )


# A role someone holds ("the site manager", "the HSE Manager", "Head of Field Operations"):
# it answers a who-question, and a who-question answered by a role asks next for the person.
ROLE_NOUN_PATTERN = (
    "manager|officer|director|head|lead|supervisor|owner|coordinator|controller|administrator|"
    "chair|commander|engineer|technician|boss|chief"
)
# the role nouns, as terms ("who is the boss of X": a document names the head of X)
ROLE_NOUNS = terms(ROLE_NOUN_PATTERN.replace("|", " "))
_ROLE_RE = re.compile(
    rf"((?:(?<![\w'’])[\w&-]+\s+){{0,3}})\b((?i:{ROLE_NOUN_PATTERN}))s?\b"
    r"((?:\s+of\s+(?:the\s+)?[A-Z][\w&-]*(?:\s+(?:&\s+)?[A-Z][\w&-]*)*)?)"
)
# the words a role's qualifiers stop at ("by both the | site manager"): the stop words, and
# the few determiners and modals that are not among them
_NOT_IN_ROLE = STOPWORDS | frozenset({"every", "must", "may"})


def roles_in(text: str) -> list[Value]:
    """The roles a passage names, each with the words that qualify it (not "a line manager"
    without its qualifier: "line manager"; not a bare "manager")."""
    found: list[Value] = []
    for match in _ROLE_RE.finditer(text):
        before: list[re.Match[str]] = []  # the qualifying words right before the role noun
        for word in reversed(list(re.finditer(r"\S+", match.group(1)))):
            if word.group(0).lower() in _NOT_IN_ROLE or not re.fullmatch(
                r"[\w&-]{2,}", word.group(0)
            ):
                break
            before.insert(0, word)
        if not before and not match.group(3):
            continue
        role = " ".join([*(w.group(0) for w in before), match.group(2), *match.group(3).split()])
        start = match.start(1) + before[0].start() if before else match.start(2)
        found.append(Value(NAME, role, (role.lower(),), start, match.end()))
    return found


def roles(text: str) -> list[str]:
    return list(dict.fromkeys(value.text for value in roles_in(text)))


def role_noun(value: Value) -> str:
    """The noun of a role ("manager" of "Site manager", "head" of "Head of Integration")."""
    match = _ROLE_RE.search(value.text)
    return match.group(2) if match else ""


def is_role(value: Value) -> bool:
    return value.kind == NAME and bool(_ROLE_RE.fullmatch(value.text))


# "every 30 minutes", "each Monday": how often something happens, not how long or when.
_RECURRING = re.compile(r"\b(?:every|each)\s*$", re.I)


def recurs(text: str, value: Value) -> bool:
    """Whether a duration, date or time of `text` says how often ("updates every 30 minutes",
    "every Monday", "nightly") rather than how long or when."""
    if value.kind not in (DURATION, DATE, TIME):
        return False
    return bool(_RECURRING.search(text[: value.start]) or _FREQUENCY_RE.fullmatch(value.text))
