"""Dates on a supersede chain: when each record came into force, and which one was in force
on a date a question names ("what did we use for X in March 2024?", "back in 2019").

Pure functions. A record's start is what its own text states next to a label that says so
(effective, in force, decided, issued, approved...): the words of English, not of one corpus.
The labels rank: a date a record took effect beats the date it was decided, which beats the
date it was approved. Only the opening of a record is read, where records state their dates;
a record without such a date falls back on its dated status history (when an editor accepted
it), which the caller passes in.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

_MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_DATES = re.compile(
    r"\b(?P<iso>(?P<iy>\d{4})-(?P<im>\d{2})-(?P<id>\d{2}))\b"
    rf"|\b(?P<dmy>(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<m1>{_MONTH})\.?,?\s+(?P<y1>\d{{4}}))\b"
    rf"|\b(?P<mdy>(?P<m2>{_MONTH})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,\s*(?P<y2>\d{{4}}))\b"
    rf"|\b(?P<my>(?P<m3>{_MONTH})\.?\s+(?P<y3>\d{{4}}))\b"
    r"|\b(?P<q>Q(?P<qn>[1-4])\s+(?P<qy>\d{4}))\b",
    re.I,
)
# A year on its own names a time in a question ("back in 2019", "in 2024"), not a code.
_YEAR = re.compile(r"(?<![\w-])(?P<y>(?:19|20)\d{2})(?![\w-])")

# Labels that state when a record started, best first.
_LABELS = (
    re.compile(r"\b(?:effective|in force|in effect|took effect|takes effect)\b", re.I),
    re.compile(r"\b(?:decided|decision|date|dated|taken|adopted|accepted|issued|agreed)\b", re.I),
    re.compile(r"\b(?:approved|signed)\b", re.I),
)
# A label's date follows it closely, in the same sentence ("Date of decision:** 20 May 2014").
LABEL_REACH = 30
# A sentence that tells of a replacement dates the end of something, not this record's start
# ("Superseded on 9 March 2023 by ...", "| Replaces | Revision 2, in force 2022 to 2025 |").
_ENDING = re.compile(
    r"\b(?:supersed\w*|replac\w*|deprecat\w*|withdr[ae]w\w*|retired|decommission\w*)", re.I
)
_SENTENCES = re.compile(r"(?<=[.!?])[*_)\]]*\s+|\n")
# Records state their dates in their opening (title block, metadata table, first paragraph).
OPENING_CHARS = 3000


@dataclass(frozen=True, kw_only=True)
class Stated:
    """A date as written, and the day it stands for."""

    day: dt.date
    text: str


def month_number(name: str) -> int:
    """A month's number from its name or its abbreviation (Sep, Sept., September -> 9)."""
    name = name.lower().rstrip(".")
    return next(i for i, full in enumerate(_MONTH_NAMES, start=1) if full.startswith(name[:3]))


def _day(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _parse(match: re.Match[str], *, middle: bool) -> Stated | None:
    """The day a date match stands for: itself, or the middle of a month or quarter when
    `middle` (a question's "in March 2024" means during it), else its first day."""
    g = match.groupdict()
    if g["iso"]:
        day = _day(int(g["iy"]), int(g["im"]), int(g["id"]))
    elif g["dmy"]:
        day = _day(int(g["y1"]), month_number(g["m1"]), int(g["d1"]))
    elif g["mdy"]:
        day = _day(int(g["y2"]), month_number(g["m2"]), int(g["d2"]))
    elif g["my"]:
        day = _day(int(g["y3"]), month_number(g["m3"]), 15 if middle else 1)
    else:
        first_month = 3 * (int(g["qn"]) - 1) + 1
        day = _day(int(g["qy"]), first_month + (1 if middle else 0), 15 if middle else 1)
    return Stated(day=day, text=match.group(0)) if day is not None else None


def stated_start(text: str) -> Stated | None:
    """When a record says it started: the date right after its best label in its opening,
    in a sentence that does not tell of a replacement."""
    found: list[tuple[int, int, Stated]] = []
    position = 0
    for sentence in _SENTENCES.split(text[:OPENING_CHARS]):
        position += 1
        if _ENDING.search(sentence):
            continue
        for rank, label in enumerate(_LABELS):
            for hit in label.finditer(sentence):
                date = _DATES.search(sentence, hit.end())
                if date is None or date.start() - hit.end() > LABEL_REACH:
                    continue
                stated = _parse(date, middle=False)
                if stated is not None:
                    found.append((rank, position, stated))
    return min(found, key=lambda f: (f[0], f[1]))[2] if found else None


def asked_date(question: str) -> Stated | None:
    """The time a question asks about ("in March 2024", "back in 2019", "as of Q1 2025"):
    its middle, so "in 2019" finds what was in force for most of that year."""
    match = _DATES.search(question)
    if match is not None:
        return _parse(match, middle=True)
    year = _YEAR.search(question)
    if year is None:
        return None
    return Stated(day=dt.date(int(year.group("y")), 7, 1), text=year.group("y"))


@dataclass(frozen=True, kw_only=True)
class Dated:
    """A record of a chain and the day it came into force (None: not known)."""

    document_id: int
    since: dt.date | None


def in_force_on(records: Sequence[Dated], day: dt.date) -> Dated | None:
    """The record in force on `day`: the one that started last on or before it (None when
    the day is before every known start)."""
    started = [r for r in records if r.since is not None and r.since <= day]
    return max(started, key=lambda r: r.since or dt.date.min, default=None)


def spoken(day: dt.date) -> str:
    """A date as the answer says it: 14 February 2025."""
    return f"{day.day} {_MONTH_NAMES[day.month - 1].capitalize()} {day.year}"


__all__ = ["Dated", "Stated", "asked_date", "in_force_on", "spoken", "stated_start"]
