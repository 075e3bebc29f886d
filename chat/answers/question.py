"""Reading a question: what kind of value it asks for, about what, and in which sense of time.

Pure and general: the rules read English question forms ("how long", "who", "is it still"),
never a corpus's titles, headings or phrasing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from chat.answers import history, values
from kb import words

# Kinds of question.
DURATION = "duration"
NUMBER = "number"
DATE = "date"
PERSON = "person"
PLACE = "place"
REASON = "reason"
HOWTO = "howto"
YESNO = "yesno"
WHICH = "which"  # "which database", "what historian": a name, a code or a number
WHAT = "what"

_AUX = (
    r"(?:is|are|was|were|do|does|did|can|could|may|might|must|should|shall|will|would|has|have|had)"
)
# The words after "how" that ask for a span of time (or a length: "how long") and those that
# ask for a number
_HOW_SPAN = r"long|often|quick(?:ly)?|fast|soon|frequently|old"
_HOW_MUCH = r"many|much|big|large|high|low|far|deep|wide|tall|heavy"
_DURATION_Q = re.compile(
    rf"\bhow (?:{_HOW_SPAN})\b|\bhow much time\b|\bby when\b|"
    r"\bhow far back\b",  # a span of time, not a distance; "how old": an age
    re.I,
)
_NUMBER_Q = re.compile(rf"\bhow (?:{_HOW_MUCH})\b", re.I)
_DATE_Q = re.compile(
    r"^\s*(?:and\s+)?(?:since\s+)?when\b|\b(?:what|which) (?:year|date|day|month|time)\b|"
    r"\bin what year\b",
    re.I,
)
_PERSON_Q = re.compile(r"^\s*(?:and\s+|but\s+|so\s+)?(?:who|whom|whose)\b", re.I)
# "Which architect designed X?", "which two engineers": a person answers, as for "who"
_PERSON_NOUNS = (
    r"architects?|engineers?|designers?|builders?|inventors?|founders?|authors?|writers?|"
    r"poets?|novelists?|playwrights?|dramatists?|composers?|conductors?|musicians?|singers?|"
    r"painters?|artists?|sculptors?|scientists?|physicists?|chemists?|mathematicians?|"
    r"economists?|philosophers?|historians?|explorers?|navigators?|captains?|admirals?|"
    r"generals?|commanders?|emperors?|empress|kings?|queens?|monarchs?|rulers?|princes?|"
    r"princess|popes?|bishops?|presidents?|ministers?|chancellors?|governors?|mayors?|"
    r"politicians?|leaders?|heads? of state|directors?|managers?|chairman|chairwoman|owners?|"
    r"rectors?|professors?|teachers?|doctors?|physicians?|surgeons?|nurses?|pilots?|"
    r"astronauts?|cyclists?|riders?|players?|athletes?|boys?|girls?|man|men|woman|women|"
    r"persons?|people|colleagues?|employees?|technicians?|supervisors?"
)
_WHICH_PERSON = re.compile(
    rf"^\s*(?:and\s+)?(?:which|what)\s+(?:[\w'’-]+\s+){{0,2}}?(?:{_PERSON_NOUNS})\b",
    re.I,
)
_PLACE_Q = re.compile(r"^\s*(?:and\s+)?where\b|\bin which (?:city|country|town|place)\b", re.I)
_REASON_Q = re.compile(
    r"^\s*(?:and\s+)?why\b|\bwhat (?:caused|causes|led to|was the (?:cause|reason)|is the reason)"
    r"|\bfor what reason\b",
    re.I,
)
_HOWTO_Q = re.compile(
    r"^\s*(?:and\s+)?(?:how (?:do|can|should|would|must) (?:i|we|you|one)|how to)\b|"
    r"\b(?:steps|procedure|command|commands)\b|"
    r"\bwhat (?:do|does|should|must|can|am|are|is|have|has) (?:[\w'’-]+\s+){1,4}do\b|"
    r"\bwhat (?:now|next)\s*\??\s*$",
    re.I,
)
# A question that opens by asking how to do something; what follows is what is done
_HOW_DO_I = re.compile(
    r"^\s*(?:and\s+)?(?:how (?:do|can|should|would|must) (?:i|we|you|one)|how to)\b", re.I
)
_NAMED_PROCEDURE = re.compile(r"\b(?:procedure|command|commands)\b", re.I)
# "is it still on?", and the topic first: "the sf-2 outage in jan, was it back up in time?"
_YESNO_Q = re.compile(
    rf"^\s*(?:and\s+|but\s+|so\s+)?{_AUX}\b|"
    rf"^[^?]*,\s*{_AUX}\s+(?:it|they|we|you|i|he|she|this|that|there)\b|"
    # a statement with a tag that asks whether it holds ("lift turbines can be climbed up to
    # 18 m/s right?"): not a wh-question ending so ("which one is right?")
    r"^(?!\s*(?:and\s+)?(?:what|which|who|whom|whose|when|where|why|how)\b)[^?]*\s"
    r"(?:right|correct|yeah|innit|no)\s*\?\s*$",
    re.I,
)
# Nouns that name a quantity: "what is the limit / the price" asks for a number.
# "the response time", "the lead time": a span of time ("the start time" is a time of day).
_SPAN_OF_TIME = re.compile(
    r"\b(?!(?:start|starting|end|ending|finish|opening|closing|arrival|departure|meeting|"
    r"launch|release|local|the|a|what|every|each|any|some|first|last|next)\b)[a-z]+ times?\b"
)
_QUANTITY_NOUNS = re.compile(
    r"\b(?:number|limit|cap|threshold|size|lag|timeout|ttl|retention|rate|percentage|version|"
    r"port|count|price|cost|budget|capacity|quota|maximum|max|minimum|min|default|speed|"
    r"amount|salary|allowance|fee|toll|length|height|distance|temperature|temp|weight|total|score|"
    r"rto|rpo|sla|target|deadline|window|per diem)\b"
    r"|%",  # "what availability %": a percentage
    re.I,
)
# ...not "count" as a verb: "which sites count as critical?" asks for the sites
_COUNT_AS = frozenset({"as", "against", "towards", "toward"})
# The temperatures named as points ("the melting point of rhenium" asks for so many degrees)
_TEMPERATURE_POINTS = re.compile(r"\b(?:melting|boiling|freezing|dew|flash)\s+points?\b", re.I)
_DURATION_NOUNS = re.compile(
    r"\b(?:duration|retention|window|deadline|lifetime|rto|rpo|half-life|period|interval|"
    r"uptime|downtime|runtime|turnaround|life)\b",
    re.I,
)
# The words of the question form itself ("how long", "what year"): not the subject.
_FRAME = re.compile(
    rf"\bhow many (?:times|ways)\b|\bhow (?:{_HOW_SPAN}|{_HOW_MUCH})\b|"
    r"\b(?:what|which) (?:year|date|day|month|time)\b|\bhow much time\b|"
    # English idioms of "for": "switched off for good", "kept for now"
    r"\bfor (?:good|now|ever|sure|certain)\b",
    re.I,
)
# A time said relative to today ("last year", "this month"): documents name the year itself
_RELATIVE_TIME = re.compile(
    r"\b(?:last|this|next|past|previous)\s+(?:year|month|week|quarter|summer|winter|spring|"
    r"autumn)\b",
    re.I,
)
# "how long did the outage last / does it take?": the closing verb asks how long again
_SPAN_VERB = re.compile(r"\b(?:last|lasts|lasted|take|takes|took)\W*$", re.I)
# Things that last rather than measure: "how long was the outage" asks for a span of time,
# never a length ("how long is the blade" may ask for either)
_LASTING_NOUNS = re.compile(
    r"\b(?:outages?|incidents?|failures?|breakdowns?|shutdowns?|stoppages?|disruptions?|"
    r"interruptions?|delays?|waits?|meetings?|shifts?|breaks?|courses?|training|visits?|trips?|"
    r"leave|holidays?|strikes?|probation|notice)\b",
    re.I,
)
_PAST = re.compile(
    r"\b(?:previous(?:ly)?|former(?:ly)?|original(?:ly)?|used to|old|older|earlier|"
    r"initial(?:ly)?|history|historical|legacy|prior|replaced|superseded|deprecated|back in|"
    r"back when|in the days of|very first|first ever)\b",
    re.I,
)
# "before X" and "until X" ask about the past only in a question in the past tense ("what did
# we use before Redis?"), not in "what to check before going up"
# "back when we had Aurora": the past the question asks about is that of the thing it names,
# not what came before it
_AT_THE_TIME = re.compile(
    r"\b(?:back when|in the days of|at the time of|when we (?:still )?(?:had|used|ran|were on))\b",
    re.I,
)
_PAST_BEFORE = re.compile(r"\b(?:before|until)\b(?!\s+\w+ing\b)", re.I)
_PAST_TENSE = re.compile(r"\b(?:did|was|were|had|used)\b", re.I)
# "was the trust founded before the pier opened?", "did X happen after 1900?": a yes/no
# question ordering two events in time (the first group: the one named first comes first)
_ORDER = re.compile(r"\b(?:(before|prior to|earlier than|ahead of)|(after|later than))\b", re.I)
# Leaving something behind: "when did we move off X / stop using X / retire X?"
_LEAVING = re.compile(
    r"\b(?:mov(?:e|ed|ing) (?:off|away from)|switch(?:ed)? (?:off|away )?from|"
    r"stop(?:ped)? using|drop(?:ped)?|ditch(?:ed)?|leave|left|retire[ds]?|replace[ds]?|"
    r"abandon(?:ed)?|decommission(?:ed)?|phase[ds]? out|(?:get|got) rid of|(?:give|gave) up|"
    r"change[ds]?)\b",
    re.I,
)


# ...and, in a question asking when, switching it off ("when did sentry get turned off?");
# in a how-to or a what-if, switching off is a step ("what happens if the pump is switched
# off?")
_SWITCHED_OFF = re.compile(r"\b(?:switch|turn|shut)(?:ed|s)? (?:it |them )?(?:off|down)\b", re.I)


def _leaving(text: str, kind: str) -> frozenset[str]:
    found = _LEAVING.search(text) or (_SWITCHED_OFF.search(text) if kind == DATE else None)
    return words.terms(found.group(0)) if found else frozenset()


_CURRENT = re.compile(
    r"\b(?:still|now|current(?:ly)?|today|nowadays|latest|anymore|yet|presently|"
    r"at (?:the moment|present)|these days|(?-i:atm))\b",
    re.I,
)
# "what would it go up to under the proposal?": a proposal's values are asked for
_PROPOSAL_Q = re.compile(r"\b(?:propos\w*|would|draft\w*)\b", re.I)
_ALTERNATIVES = re.compile(
    r"\b(?:not|n't|alternatives?|reject\w*|instead|consider\w*|why not|other options?)\b", re.I
)
# What it takes: "what do I need before ...", "what is required", "the requirements"
_NEEDS = (
    r"what (?:do|does|did|would|will) (?:i|we|you|they|one|it|\w+) need|what(?:'s| is) "
    r"(?:needed|required)|requirements|what (?:has|have|needs?) to be|what must be"
)
_NEEDS_Q = re.compile(rf"\b(?:{_NEEDS})\b", re.I)
# "what (actually) changed", "what is different": every change
_CHANGED = r"what\s+(?:\w+\s+)?(?:has\s+|have\s+)?changed|what\s+is\s+different"
_CHANGED_Q = re.compile(rf"\b(?:{_CHANGED})\b", re.I)
_LIST_WORDS = re.compile(
    r"\b(?:list|checklist|all|every|each|steps|which ones|what are|which are|name the|kinds of|types of|"
    rf"{_CHANGED}|{_NEEDS})\b",
    re.I,
)
# "need the full list", "whole checklist pls": the form of the answer asked for, not what
# it is about
_ANSWER_FORM = re.compile(r"\b(?:(?:full|whole|complete|entire)\s+)?(?:check)?list\b", re.I)
_PLURAL_AFTER_WH = re.compile(
    r"^\s*(?:and\s+)?(?:what|which)\s+(?:(?:of\s+)?(?:the|our|my|your)\s+)?"
    r"(?:(?!(?:is|are|was|were|does|do|did|has|have|had)\b)[a-z-]+\s+){0,2}"
    r"(?!(?:does|has|was|is|its|this|thus|yes|always|perhaps|whereas)\b)"
    rf"([a-z-]{{3,}}{values.PLURAL_ENDING})\b",
    re.I,
)
# "who's on the exec team", "who sits on the safety committee": its members, a list of them
# (the nouns English has for a body of people; not "who's on call", "who's on the rota")
_WHO_IS_ON = re.compile(
    r"^\s*(?:and\s+)?who\s+(?:is|are|sits|serves|was|were)\s+(?:on|in)\s+(?:the|our|their)\s+"
    r"(?:[a-z-]+\s+){0,3}?(?:team|board|committee|panel|group|council|crew|squad)s?\b",
    re.I,
)
# "who are the duty managers", "who were our engineers": several people, a list of them
_WHO_ARE = re.compile(
    rf"^\s*(?:and\s+)?who\s+(?:are|were)\s+(?:the|our|all the|all)\s+(?:[a-z-]+\s+){{0,2}}?"
    rf"[a-z-]{{3,}}{values.PLURAL_ENDING}\b",
    re.I,
)
# "..., and do I need to get quotes?", "... but who approves it?": a second question
_SECOND_QUESTION = re.compile(
    rf"[,;]?\s+(?:and|but)\s+(?=(?:{_AUX}|who|what|when|where|how|which|why)\b)", re.I
)
# "how long are backups kept", "how long do we keep logs", "how long is the topic retained"
# The words saying how long something is kept: English, not one corpus's headings. A unit
# saying any of them states the keeping a "how long are X kept?" question asks about.
KEEPING = words.terms(
    "keep keeps kept retain retains retained retention store stored storage hold held "
    "archive archived delete deleted purge purged expire expires expiry"
)
_KEEPS_Q = re.compile(
    r"^\s*(?:and\s+)?how long\s+(?:(?:is|are|was|were|will|should|must|can)\s+(?:[\w'’-]+\s+)"
    r"{0,6}?(?:be\s+)?(?:kept|retained|stored|held|archived)\b|(?:do|does|did|should|must|will|"
    r"can)\s+(?:we|you|they|i|it)\s+(?:keep|retain|store|hold|archive)\b)",
    re.I,
)
_COMPARE = re.compile(
    r"\b(?:within|under|over|more than|less than|exceed\w*|beyond|faster|slower|longer|"
    r"shorter|above|below|inside)\b"
    # a verb that compares, not a word after "the" that names a thing ("the met mast")
    r"|(?<!\bthe )(?<!\ba )(?<!\ban )\b(?:meet|met|hit|beat|breach\w*|miss(?:ed)?)\b"
    # "did we make the SLA": "make" compares only when what it makes is a target or a limit
    r"|\bma(?:ke|de)\b(?=\s+(?:the|our|its|their|it\s+(?:within|inside|under))\b"
    r"(?:\s+[\w-]+)?\s+(?:sla|slas|target|targets|deadline|deadlines|limit|limits|goal|"
    r"goals|cut-?off|window)\b)",
    re.I,
)
_COMPARE_FRAME = re.compile(
    r"\b(?:within|more than|less than|exceed\w*|beyond|above|below)\b", re.I
)
# "who leads X", "who looks after X": the word after "who" when it is a verb, not "is"
_WHO_VERB = re.compile(
    r"^\s*(?:and\s+|but\s+|so\s+)?who\s+(?:(?:has|have|had|needs?|ought|gets?) to\s+|"
    r"(?:must|should|can|could|may|might|will|would|shall)\s+)?"
    rf"(?!{_AUX}\b)([a-z]+)\b",
    re.I,
)
# "who's in charge of X", "who is responsible for X": the English ways of saying whose job X is
_IN_CHARGE = re.compile(
    r"^\s*(?:and\s+)?who\s+(?:is|are|was|were)\s+(?:now\s+)?"
    r"(in charge|responsible|accountable)\s+(?:of|for|at)\b",
    re.I,
)
# "when did X kick in", "when was X founded": the last word that is not a particle
_WHEN_VERB = re.compile(rf"^\s*(?:and\s+)?when\s+{_AUX}\s+\S.*?\b([a-z]+)\b[\s\W]*$", re.I)


# A prepositional phrase closing a question whose object is named: capitalised words or a
# number after "past", "to", "from"... ("fly past Neptune", "move to the United States").
_TRAILING_NAMED = re.compile(
    r"\s+(past|to|from|into|onto|at|in|on|for|with|by|near|across|through|around|over)"
    r"(?:\s+(?:the|a|an))?(?:\s+(?:[A-ZÀ-Þ][\w'’.-]*|\d[\w.-]*|of|and|&))+[\s?.!]*$"
)


# English light verbs: with them the noun after says what was done ("made the call")
_LIGHT_VERBS = frozenset(
    words.terms("make makes made take takes took give gives gave get gets got have has had")
)


# The light verb's object ends where the thing it is about begins ("the call on going with
# it", "the decision to switch to Fabrica").
_OBJECT_END = re.compile(
    r"\b(?:to|in|on|of|for|at|about|over|into|during|after|from|by|with|when|if|and|or)\b|"
    r"[,;?!]",
    re.I,
)


# The English ways of saying that someone decided: the verbs, and the nouns a light verb
# takes ("made the call", "gave the go-ahead"; not "who calls the engineer")
_DECIDING_VERBS = frozenset(
    words.terms("decide decided sign signed approve approved choose chose chosen agree agreed")
)
_DECIDING_NOUNS = frozenset(words.terms("decision call go-ahead approval sign-off"))
_DECIDED = frozenset(words.terms("decided approved"))


# "who turned down X?", "when did we decide against X?": who rejected it or when, which a
# rejected approach's record says as its decision ("Rejected on ... by", "Decided on ... by")
_REJECTING_Q = re.compile(
    r"\b(?:turn(?:ed|s)?\s+(?:\w+\s+)?down|decid(?:ed|es|e)\s+against|rul(?:ed|es|e)\s+out|"
    r"(?<!\bthe )(?<!\ba )(?<!\ban )(?<!\bour )reject(?:ed|s)?|veto(?:ed|es)?|said no to|shot down|"
    r"knock(?:ed|s)? back)\b",
    re.I,
)
# "reject" is a verb after a word that needs one ("did the board reject it?"); without one it
# names a thing ("who empties the MD reject bins?"), as "the rejected packs" does
_NEEDS_VERB = re.compile(r"\b(?:do|does|did|will|would|should|could|can|to|not|n't)\b", re.I)


def _rejecting(asked: str) -> re.Match[str] | None:
    for match in _REJECTING_Q.finditer(asked):
        if match.group(0).lower() != "reject" or _NEEDS_VERB.search(asked[: match.start()]):
            return match
    return None


_REJECTED = frozenset(words.terms("rejected decided"))


def _deciding(relation: frozenset[str]) -> bool:
    return bool(relation & _DECIDING_VERBS) or bool(
        relation & _LIGHT_VERBS and relation & _DECIDING_NOUNS
    )


# "where is X kept / stored / located?": the verb says only that X is somewhere
_PLACING_VERBS = frozenset(
    words.terms("kept stored held located found filed saved put placed sits lives hangs")
)


def _relation(kind: str, text: str) -> frozenset[str]:
    if kind == PLACE:
        return words.terms(text) & _PLACING_VERBS
    if kind == PERSON:
        charged = _IN_CHARGE.match(text)
        if charged is not None:
            return words.terms(charged.group(1))  # documents say Owner, Manager, Head of
        match = _WHO_VERB.match(text)
        if match is None:
            return frozenset()
        verb = words.terms(match.group(1))
        if verb & _LIGHT_VERBS:
            # "who made the final call", "who gave the go-ahead": the noun says what is done
            phrase = _OBJECT_END.split(text[match.end() :], maxsplit=1)[0]
            return verb | words.terms(phrase)
        return verb
    if kind == DATE:
        # the verb comes before its particles and before a place or thing it goes to by name
        # ("fly past Neptune", "move to the United States"): not the relation
        named = _TRAILING_NAMED.search(text)
        body = text[: named.start()] if named else text
        body = re.sub(
            r"(?:\s+(?:in|on|off|out|up|over|it|them|this|that|back))+[\s?.!]*$", "", body
        )
        match = _WHEN_VERB.match(body)
        if match is None:
            return frozenset()
        # ...and the preposition is the verb's ("fly past": documents say "passed"); a light
        # verb goes with the noun it takes ("take effect": documents say "effective")
        return (
            words.terms(match.group(1))
            | (words.terms(named.group(1)) if named else frozenset())
            | (words.terms(body) & _LIGHT_VERBS)
        )
    return frozenset()


# "how tall", "how high": a height, said in words of height (one of them is enough)
_HOW_TALL = re.compile(r"\bhow (?:tall|high)\b", re.I)
_HEIGHT_WORDS = frozenset(words.terms("tall high rises"))


_YEAR_Q = re.compile(r"\b(?:which|what) year\b|\bthe year\b", re.I)
_COUNTED = re.compile(r"\bhow many ([a-z][a-z0-9-]*(?: [a-z][a-z0-9-]*)?)", re.I)


@dataclass(frozen=True, kw_only=True)
class Question:
    """What a question asks: its kind, the value kinds that answer it, its subject terms."""

    text: str
    kind: str
    value_kinds: frozenset[str]  # the values an answer must carry (none: any unit may answer)
    preferred_kinds: frozenset[str] = frozenset()  # values an answer is likely to carry
    terms: frozenset[str]  # content terms of the subject (the question form's words removed)
    surface: tuple[tuple[str, str], ...] = ()  # (term, the word it was read from)
    names: tuple[str, ...]  # names, codes and numbers the question names exactly
    kind_spans: frozenset[str] = frozenset()  # terms of a span naming a kind ("10 minute data")
    identifiers: tuple[str, ...]  # codes (ADR-0005, GW-4021, SQS), lower-cased
    counted: frozenset[str]  # the noun a "how many" question counts
    measured_in: str = ""  # ...when that noun is a unit of measure, its symbol ("mw")
    wants_list: bool
    asks_past: bool
    asks_current: bool
    asks_alternatives: bool
    compares: bool  # a yes/no question that compares two values ("within the target?")
    # what a compare question holds the value against, its terms in order ("within the SLA
    # target" -> sla, target; the last is the head noun); empty when it names a value
    against: tuple[str, ...] = ()
    elliptical: bool = False  # not a whole question ("and at Carn Dubh?", "what about X?")
    refers_back: bool = False  # a pronoun stands for a thing it does not name ("go live on it")
    continues: bool = False  # opens with a conjunction: it goes on from what was said ("and ...")
    # an elliptical follow-up naming a thing of its own ("and the trailer doors?"): the
    # subject it carries from the question before, which only tells apart units stating this
    # one (and ties another document's unit to the question)
    carried: frozenset[str] = frozenset()
    asks_frequency: bool = False  # "how often": every quarter, twice a year, every 2 hours
    asks_requirements: bool = False  # "what do I need before X?": what X requires
    superlative: str = ""  # MOST ("which scored best?"), LEAST ("the worst"), or ""
    # the end of a measure it asks for: MOST ("the longest plan", "the maximum load"),
    # LEAST ("the shortest", "the minimum"), or ""
    extreme: str = ""
    # it names its subject by what the subject did or is ("the system that fell over in the
    # feb outage", "whoever is on call"): another document may say what that is
    describes: bool = False
    described: frozenset[str] = frozenset()  # ...the words of the clause describing it
    # the past time a question asks about ("what did we use in March 2024?", "back in 2019")
    as_of: history.Stated | None = None
    # the verb saying that something was left behind ("when did we move off X?", "why did we
    # ditch X?"): it names nothing that was left
    leaving: frozenset[str] = frozenset()
    asks_year: bool = False  # "in which year", "what year": a year or a date, not a decade
    # the values a yes/no question says are so ("are raw messages kept for half a year?", "leila
    # said the backups stay 14 days. is that right?"): the record's value says yes or no
    checked: tuple[values.Value, ...] = ()
    # the verb that relates the asked person or date to the subject ("who leads field ops",
    # "when did the rule kick in"): documents say it other ways (Head of, Effective)
    relation: frozenset[str] = frozenset()
    decides: bool = False  # ...and that relation is deciding ("who signed off X")
    # the measured values the question states itself ("still down after 2 hrs", "over
    # GBP 500"): a unit stating the same value is about the case it asks of
    stated: tuple[values.Value, ...] = ()
    # the thing whose number identifies it ("their contract number": contract): a code
    # written after that word answers ("under contract PCL-2024-03"), not an amount
    identifies: str = ""
    # the subject of a second question joined to the first ("how much for 40 packs, and do I
    # need to get quotes?": quote; `terms` are the first one's): the answer answers it too
    then: frozenset[str] = frozenset()
    # "how long are backups kept?": the span asked is how long something is kept, which a
    # unit saying it keeps, retains, stores or deletes states (not how long a restore took)
    keeps: bool = False
    proposal: bool = False  # it asks what a proposal or draft would change, not what holds
    # what a "for" phrase narrows the question to ("the critical potassium limit for
    # children": child), its words of some weight: one of them must be said of the answer
    restricted_to: tuple[frozenset[str], ...] = ()
    asks_change: bool = False  # "what changed in X?": what says a thing changed answers it
    # "who was the consulting engineer?": the words that say which of that kind of person is
    # asked for; a unit naming engineers must say consulting too
    role_qualifiers: frozenset[str] = frozenset()
    # the values a second question joined to it asks for ("who turned it down, and when?": a
    # date as well as a name)
    also_kinds: frozenset[str] = frozenset()
    at_the_time: bool = False  # "back when we had X": of X's own time, not before it
    # "which route does not offer huts?": it asks of what is not so; a unit saying only what
    # is so ("the Marangu route offers huts") does not answer it
    negated: bool = False
    # "was the trust founded before the pier opened?": the two events (or an event and a
    # date) a yes/no question orders in time, the one it asks to come first first
    in_order: tuple[str, ...] = ()
    # the nouns it ranks ("the second part", "the average depth"): a unit ranking the same
    # noun otherwise only ("the first part", "a maximum depth") does not answer it
    ranks: tuple[tuple[str, frozenset[str]], ...] = ()
    # the words of what it sets aside ("apart from quay st, which station ...": quay, st): a
    # unit saying it of that thing alone does not answer it
    excluded: frozenset[str] = frozenset()
    excluded_names: tuple[str, ...] = ()  # ...the names among them ("Quay Street")
    # what a "what is the N of X?" question asks of X ("magnitude"): a unit that answers says
    # it, where another unit does (see `_property_of`)
    property_asked: frozenset[str] = frozenset()
    # the words it negates with "un" ("unsuccessful"), each with the plain word: a unit saying
    # only the plain word ("the most successful of his operas") says the opposite
    opposed: tuple[tuple[frozenset[str], frozenset[str]], ...] = ()
    # what a negated question says is not so ("digressions" of "which chapters are not
    # digressions?"): a unit saying "not" of something else does not answer it
    denied: frozenset[str] = frozenset()

    @property
    def asks_end(self) -> bool:
        """The question asks when or why something was left behind."""
        return bool(self.leaving)

    @property
    def specific(self) -> bool:
        """The question asks for a particular kind of value (a duration, a name, a date...)."""
        return bool(self.value_kinds)


def _is_unit_symbol(token: str) -> bool:
    """A unit of measure written as its symbol ("the kva rating", "the rpm"): so many of it
    are asked for. (One letter, "a" or "m", is as often a word or an initial.)"""
    return len(token) >= 2 and token in words.UNIT_NAMES


def _kind(text: str) -> str:
    if _HOW_DO_I.match(text):
        return HOWTO  # "how do i see how many resets it had": how it is done, not the count
    if _REASON_Q.search(text):
        return REASON
    if _DURATION_Q.search(text):
        return DURATION
    if _DATE_Q.search(text):
        return DATE
    if _PERSON_Q.search(text) or _WHICH_PERSON.match(text):
        return PERSON
    if _PLACE_Q.search(text):
        return PLACE
    if _NUMBER_Q.search(text):
        return NUMBER
    if _HOWTO_Q.search(text) and not (_WHICH_Q.match(text) and _NAMED_PROCEDURE.search(text)):
        return HOWTO  # but "which revision of the procedure is current?" asks which
    if _YESNO_Q.search(text):
        return YESNO
    asked = _ASKED_NOUN.match(text)
    if asked is None and not _QUESTION_FORM.match(text):
        # a question typed like a search ("ups runtime in the data centres?") names what it
        # asks for first
        asked = _ASKED_NOUN.match(f"what is {text}")
    named = _asked_words(asked)
    if named[:1] and _KINDS_OF.fullmatch(named[0]):
        return WHAT  # "what kind of downtime ...": kinds of it, not a span of time
    if _WHAT_IT_COSTS.match(text):
        return NUMBER  # "what do we pay for X?", "what does X cost?": an amount
    if any(_DURATION_NOUNS.fullmatch(token) for token in named) or _SPAN_OF_TIME.search(
        " ".join(named)
    ):
        return DURATION
    nouns = [
        token
        for at, token in enumerate(named)
        # "which sites count as critical?": "count" is the verb
        if not (token == "count" and named[at + 1 : at + 2] and named[at + 1] in _COUNT_AS)
    ]
    if any(
        _QUANTITY_NOUNS.fullmatch(token) or _is_unit_symbol(token) for token in nouns
    ) or _TEMPERATURE_POINTS.search(" ".join(named)):
        return NUMBER
    if _WHICH_Q.match(text):
        return WHICH
    return WHAT


# not, never, and the negated auxiliaries typed with or without their apostrophe
_NEGATED = re.compile(
    r"\b(?:not|never|cannot|(?:do|does|did|is|are|was|were|ca|wo|could|should|would|has|have|"
    r"had|must)n['’]?t)\b",
    re.I,
)


def _denied_words(asked: str) -> frozenset[str]:
    """The words after a question's "not" (its subject's own words aside, they are what it
    says is not so): "digress" of "which chapters of moby-dick are not digressions?"."""
    found = _NEGATED.search(asked)
    return words.terms(asked[found.end() :]) - REQUEST_WORDS if found else frozenset()


_KINDS_OF = re.compile(r"kinds?|types?|sorts?", re.I)


_WH = r"(?:what|which|who|whom|whose|when|where|why|how)\b"  # the words that ask
# A question that opens like one (a question word or a verb), not like a search query.
_QUESTION_FORM = re.compile(rf"\s*(?:and\s+|but\s+|so\s+)?(?:{_WH}|{_AUX}\b)", re.I)
# "a tech left his lock on, who has to sign off?": the case first, then the question; the
# question's own clause says what is asked (its kind), the case only names the subject
_CASE_FIRST = re.compile(
    # (not a first part that asks itself: "p2 tickets - how fast do we have to respond, is it
    # an hour?" asks how fast, and checks its guess after)
    rf"^(?!{_QUESTION_FORM.pattern})(?:(?!\bhow\s+(?:{_HOW_SPAN}|{_HOW_MUCH})\b|"
    rf"\b(?:what|which|who|whom|whose)\b)[^,;?]){{3,}}?,\s*(?:so\s+|then\s+)?(?={_WH}|{_AUX}\b)",
    re.I,
)


# "when we work out availability which hours are taken out?", "if i log a P2 how soon ...":
# a condition first, a clause of its own with or without its comma, then the question
_CONDITION_FIRST = re.compile(
    r"^\s*(?:when|whenever|if|once|after|before|while)\s+(?:we|i|you|they|he|she|it|someone|"
    r"somebody|a|an|the|our|my|your|their)\b[^?]*?[\s,]\s*"
    r"(?=(?:what|which|who|whom|whose|where|why|how)\b)",
    re.I,
)


# "the SF-2 stop was a P1. what is the restore target?": statements of the case, then the
# sentence that asks
_SENTENCE_END = re.compile(r"(?<=[.!])\s+(?=[a-z])", re.I)
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=\S)")


# "in the 2018 version of the sla what was the p1 fix time", "at coldhurst who signs off":
# where or when the question holds, without a comma, then the question
_PHRASE_FIRST = re.compile(
    rf"^\s*(?:in|on|at|for|under|during|per)\s+(?!{_WH})(?:(?!{_WH})[^?,;]){{1,60}}?\s+(?={_WH})",
    re.I,
)


def _asked_clause(text: str) -> str:
    """The clause that asks: the whole question, its last sentence when the sentences before
    it state the case, or what follows the case it opens with."""
    sentences = _SENTENCE_END.split(text)
    if len(sentences) > 1 and _QUESTION_FORM.match(sentences[-1]):
        return sentences[-1]
    case = _CASE_FIRST.match(text) or _CONDITION_FIRST.match(text) or _PHRASE_FIRST.match(text)
    return text[case.end() :] if case else text


# "w/c 20 april" (week commencing), "n/a": two letters with a slash shorten a phrase that
# frames the question; they name nothing it asks about
# (not a unit after its number: "18 m/s")
_LETTER_PAIR = re.compile(r"(?<![\w/])(?<!\d )[a-z]/[a-z](?![\w/])", re.I)


# "apart from quay st, which station ...", "besides the Selenga which rivers ...", "apart
# from the concert hall, the drama theatre and ..., what other venues": what the question
# sets aside, up to the question word after it
# ("besides the arctic fox are native to iceland": what it sets aside ends at the verb)
_EXCLUDING = re.compile(
    rf"\b(?:apart from|aside from|besides|other than|except(?:\s+for)?|excluding|not counting)"
    rf"\s+((?:(?!{_WH}\b)[^;?])+?)(?=\s*,?\s*{_WH}\b|\s*[;?]|\s*$|\s+{_AUX}\b)",
    re.I,
)


# "leila said at the ops meeting the backups only stay 14 days. is that right?": a claim
# someone made, and then the question that checks it. Who said it, and where, is not what is
# asked about; the value claimed is what is checked, and its kind is the kind asked for.
_REPORTED = re.compile(
    r"^\s*(?:[\w'’-]+\s+){1,4}?(?:said|says|told (?:us|me|everyone)|mentioned|claimed|claims|"
    r"reckons|reckoned|thinks|wrote|reported|announced|heard|(?:was|were|got) told)\b"
    r"(?:\s+(?:at|in|on|during)\s+(?:the|a|an|our|this|last|today's|yesterday's)?\s*"
    r"(?:[\w'’-]+\s+){0,2}?(?:meeting|call|stand-?up|chat|email|newsletter|post|thread|"
    r"channel|review|briefing|notes|minutes|huddle|update|sync|catch-?up|workshop|retro|"
    r"handover|report|townhall|all-hands))?(?:\s+that)?\s",
    re.I,
)


# "how long did it actually take?", "how much does it really buffer?": what did happen, or
# what holds, as against what was planned or claimed
_ACTUALLY = r"actual(?:ly)?|real(?:ly)?|in fact|in practice|in the end"
# ...and the words that check a claim ("what's the actual target?", "is that right?")
_CHECKING = re.compile(rf"\b(?:{_ACTUALLY}|true|truly|correct|right)\b", re.I)


def _measures(text: str) -> bool:
    """The text states a measured value (a number, span, amount or share)."""
    return any(v.kind in values.NUMERIC_KINDS for v in values.values_in(text))


def _claim(text: str) -> tuple[str, str, tuple[str, ...]]:
    """The question with who reported a claim left out, the claims it checks ("" when it
    reports none): sentences that report a measured value ("declan mentioned 30 days"), and
    of those the readings told after the question ("coldhurst got 240 on the depositor")."""
    kept: list[str] = []
    claims: list[str] = []
    told: list[str] = []
    for sentence in _SENTENCES.split(text):
        reported = _REPORTED.match(sentence)
        said = sentence[reported.end() :] if reported else ""
        asked_before = bool(kept) and kept[-1].rstrip().endswith("?")
        if said and asked_before:
            # "How many pipe volumes do we flush? Jason reckons one is plenty": the question
            # is asked; what someone reckons after it is a claim it checks, not its subject
            claims.append(said)
            continue
        if asked_before and not sentence.rstrip().endswith("?") and _measures(sentence):
            # "whats the ATP pass limit? coldhurst got 240 on the depositor": a reading told
            # after the question is what it checks, not what it asks about
            claims.append(sentence)
            told.append(sentence)
            continue
        if said and _measures(said):
            claims.append(said)
            for value in reversed(values.values_in(said)):
                if value.kind in values.NUMERIC_KINDS:  # the value checked, not the subject
                    said = said[: value.start] + " " + said[value.end :]
            sentence = said
        kept.append(sentence)
    if not claims:
        return text, "", ()
    return _CHECKING.sub(" ", " ".join(kept)), " ".join(claims), tuple(told)


# "which X", "what X <verb>": asks for one of a kind of thing (not "what is", "what do I")
_WHICH_Q = re.compile(
    r"\s*(?:and\s+)?(?:which|what)\s+(?!(?:is|are|was|were|do|does|did|can|could|should|"
    r"would|will|has|have|had|happens|happened|if|about|else|to|i|we|you|they|it|this|that|"
    r"kinds?|sorts?)\b)[a-z]",
    re.I,
)


# "what is the maximum lifetime of ...", "what's our per diem": the few words naming what is
# asked for, right after the question word (not a noun deep in its subject: "rate limiting")
_ASKED_NOUN = re.compile(
    r"\s*(?:and\s+)?(?:what|which)(?:\s+(?:is|was|are|were))?"
    r"(?:\s+(?:the|our|a|an|my|your|their))?((?:\s+[\w/%'’-]+){1,3})",  # ("the dam's height")
    re.I,
)


def _asked_words(found: re.Match[str] | None) -> list[str]:
    """The words an `_ASKED_NOUN` match names, lower-cased, without their punctuation."""
    return [token.strip("?.,").lower() for token in found.group(1).split()] if found else []


# A subject named by a relative clause: "the system that fell over", "the person who
# approved it", "whoever is on call" (not the question's own "what is it that ...")
_DESCRIBED = re.compile(
    r"\b(?:the|a|an)\s+(?:[\w'’-]+\s+){0,2}?[\w'’-]+\s+(?:that|which|who|whose)\s+(?P<said>\w+)"
    r"|\bwho(?:ever|mever)\b|\bwhichever\b",
    re.I,
)


def _described(text: str, found: re.Match[str] | None) -> frozenset[str]:
    """The words of a relative clause describing the question's subject ("spilled into the
    harbour in march" of "the pumping station that spilled into the harbour in march"), from
    the text's `_DESCRIBED` match."""
    return (
        words.terms(text[found.start("said") :]) if found and found.group("said") else frozenset()
    )


# "what do we pay for the historian?", "what does it cost?": not "what does the fee pay for?"
# nor "what stuff will finance pay back?" (things)
_WHAT_IT_COSTS = re.compile(
    r"\s*(?:and\s+|so\s+)?what\s+(?:do|does|did|are|is|was|were|will|would|should|could)\s+"
    r"(?:(?!(?:if|when|happens?|to)\b)[\w'’]+\s+){0,4}?"
    r"(?:cost|costs|pay|paying|spend|spending|charge|charges|charging)\b(?!\s+for\s*\??\s*$)",
    re.I,
)
_PAYING = re.compile(r"\b(?:pay|pays|paying|spend|spends|spending)\b", re.I)
_MONEY_WORDS = re.compile(
    r"\b(?:cost|costs|price|prices|priced|pay|paid|pays|paying|payments?|wages?|spend|spent|spending|"
    r"budget|fee|fees|toll|"
    r"worth|salary|compensation|allowance|per diem|charges?|charged|fines?|fined|reimburs\w*|"
    r"euros?|dollars?|kroner|pounds)\b|[€$£]",
    re.I,
)
# "the phone number of X", "number for the duty phone", "which extension": a telephone number
_PHONE_Q = re.compile(
    r"\b(?:(?:tele)?phone|mobile|cell|fax|contact) (?:number|no)\b|\bextension\b|"
    r"\bnumber (?:to|do i|should i|can i) (?:call|ring|dial|phone)\b|\bnumber for\b.*\bphone\b",
    re.I,
)
_COUNTED_TIME = re.compile(
    r"\bhow many (?:\w+ )?(?:seconds|minutes|mins|hours|hrs|days|weeks|months|years|shifts)\b",
    re.I,
)
_WEIGHT_WORDS = re.compile(r"\b(?:weigh|weighs|weight|heavy)\b", re.I)
_PERCENT_WORDS = re.compile(r"\b(?:percent(?:age)?s?|per cent|shares?|proportions?)\b|%", re.I)


def _measured_in(text: str) -> str:
    """The unit of measure a "how many" question counts in ("how many megawatts" -> "mw")."""
    counted = _COUNTED.search(text)
    return words.unit_symbol(counted.group(1).split()[0]) if counted else ""


# "their contract number", "the asset no.", "the order id": what identifies a thing, not an
# amount ("the number of turbines" counts; a phone number is a number to call)
_IDENTIFIER_NUMBER = re.compile(r"\b([a-z]+)\s+(?:number|no\.?|id)(?![\w.])", re.I)
_NOT_IDENTIFIED = frozenset(
    "the a an our their its his her your my this that what which any whose version "
    "telephone phone mobile cell fax contact emergency direct large small total growing "
    "high higher low lower maximum minimum max min same certain limited great greater "
    "average huge whole odd even right wrong".split()
)
# the words a question asks for an identifier with: a unit stating the identifier says them
IDENTIFIER_WORDS = words.terms("number no id")


def _second_question(text: str) -> frozenset[str]:
    """The subject terms of a second question joined to the first by "and" or "but" (not one
    opening with it: "and at Carn Dubh?" follows up the turn before)."""
    parts = _SECOND_QUESTION.split(text, maxsplit=1)
    if len(parts) < 2 or not words.terms(parts[0]) - REQUEST_WORDS:
        return frozenset()
    return frozenset(words.terms(_FRAME.sub(" ", parts[1])) - REQUEST_WORDS)


def _also_kinds(kind: str, asked: str) -> frozenset[str]:
    """The value kinds a second question joined to the first asks for, when it asks another
    kind of thing ("..., and when?")."""
    parts = _SECOND_QUESTION.split(asked, maxsplit=1)
    if len(parts) < 2:
        return frozenset()
    second = _kind(parts[1])
    return frozenset() if second == kind else _value_kinds(second, parts[1])


def _identifies(text: str) -> str:
    match = _IDENTIFIER_NUMBER.search(text)
    if match is None or match.group(1).lower() in _NOT_IDENTIFIED or _PHONE_Q.search(text):
        return ""
    return match.group(1).lower()


def _value_kinds(kind: str, text: str) -> frozenset[str]:
    """The kinds of value that answer a question of `kind` (narrowed by its words: "how much
    did it cost" wants an amount of money, "how many" a count)."""
    if kind in (NUMBER, WHICH, WHAT) and _PHONE_Q.search(text):
        return frozenset({values.PHONE})
    if kind in (NUMBER, WHAT, WHICH) and _identifies(text):
        return frozenset({values.CODE, values.COUNT})  # PCL-2024-03, or a number (asset 4512)
    if kind == NUMBER:
        if _MONEY_WORDS.search(text):
            return frozenset({values.MONEY})
        if _PERCENT_WORDS.search(text):
            return frozenset({values.PERCENT})
        if _WEIGHT_WORDS.search(text):
            return frozenset({values.QUANTITY})
        if _measured_in(text):
            return frozenset({values.QUANTITY})  # "how many megawatts": so many MW
        if _COUNTED_TIME.search(text):
            # "how many hours / working days": a span of them ("60 hours per turbine")
            return frozenset({values.DURATION, values.COUNT})
        if re.search(r"\bhow many\b", text, re.I):
            return frozenset({values.COUNT})
    if kind == DURATION and (
        _SPAN_VERB.search(text) or _DURATION_NOUNS.search(text) or _LASTING_NOUNS.search(text)
    ):
        return frozenset({values.DURATION})
    return _VALUE_KINDS.get(kind, frozenset())


_VALUE_KINDS = {
    DURATION: frozenset({values.DURATION, values.QUANTITY}),  # "how long" is time or length
    NUMBER: frozenset(values.NUMERIC_KINDS),
    DATE: frozenset({values.DATE, values.TIME}),
    PERSON: frozenset({values.NAME}),
    PLACE: frozenset({values.NAME, values.LOCATION}),
}
# "which database": most answers name it, but "the one that ..." answers too.
_PREFERRED_KINDS = {WHICH: frozenset({values.NAME, values.CODE, values.COUNT, values.QUANTITY})}
# "was it fixed within the target?" compares two durations (or amounts): preferred, not required
_COMPARED_KINDS = frozenset(values.NUMERIC_KINDS)


def own_names(question: Question) -> tuple[str, ...]:
    """The names and codes a question names, without the numbers of the measurements it
    states ("the 10 minute averages", "after 2 hrs"): those qualify what it asks about."""
    measured = " ".join(
        v.text
        for v in values.values_in(question.text)
        if v.kind in values.NUMERIC_KINDS and v.kind != values.COUNT
    )
    return tuple(
        name
        for name in question.names
        if not (name[:1].isdigit() and re.search(rf"(?<![\w.]){re.escape(name)}", measured))
    )


# "P1s", "SF-2s": the plural of a code (letters, then digits) names the code
_CODE_PLURAL = re.compile(r"\b([A-Za-z]+-?\d+)s\b")


def _names(text: str) -> tuple[str, ...]:
    """Capitalised names (not the question's first word), codes and numbers in the question."""
    found: list[str] = []
    body = re.sub(r"^\s*\W*\w+", " ", text)  # the first word is capitalised anyway
    for match in re.finditer(r"[A-ZÀ-ÖØ-Þ][\w'’-]*(?:\s+[A-ZÀ-ÖØ-Þ][\w'’-]*)*", body):
        name = _CODE_PLURAL.sub(r"\1", match.group(0))
        # (a word typed in capitals for emphasis, "when do we HAVE to", names nothing)
        if name.lower() not in {"i", "i'm", "i've"} and name.lower() not in words.STOPWORDS:
            found.append(name)
    # (not the number of a measure: "the 5 year cost" names no 5)
    measured = {
        v.start
        for v in values.values_in(text)
        if v.kind in values.MEASURED_KINDS and v.text[:1].isdigit()
    }
    for match in re.finditer(r"(?<![\w.])\d[\w.,/-]*", text):
        if match.start() not in measured:
            found.append(match.group(0).rstrip(".,"))
    # a code typed in lower case ("hb3", "sf-2", "p2"): letters, then digits
    found.extend(re.findall(r"(?<![\w.-])[a-z]{1,4}-?\d{1,4}(?![\w-])", body))
    return tuple(dict.fromkeys(found))


# A nationality or people adjective ("Italian", "Finnish", "Castilian"), and its ending.
DEMONYM_ENDING = r"(?:an|ish|ese|ian|ic|i)"
DEMONYM = re.compile(rf"^[A-Z][a-z]+{DEMONYM_ENDING}$")
_ASKED_KIND = re.compile(r"\b(?:which|what|whose|how many|how much)\s", re.I)
_ENDS_KIND = re.compile(rf"^(?:{_AUX}|the|an?|of|in|on|at|to|for|from|by|with|into)$", re.I)


def _qualifiers(text: str) -> frozenset[str]:
    """The nationality adjectives that qualify the kind of thing asked for ("which Finnish
    head of government", "what major Italian literary award"): the answer is such a thing,
    and its document need not say the nationality. One said elsewhere ("who translated it
    into Italian?") is part of what is asked about."""
    found: set[str] = set()
    for match in _ASKED_KIND.finditer(text):
        for word in text[match.end() :].split()[:3]:
            word = word.strip(".,;:!?\"'()")
            if _ENDS_KIND.match(word):
                break
            if DEMONYM.match(word):
                found.add(word)
    return frozenset(found)


def _shape(name: str) -> str:
    if name[:1].isdigit():
        return "number"
    return "code" if re.search(r"\d", name) else "name"


def restated(previous: str, follow_up: str) -> str:
    """An elliptical follow-up read as the question before it, of what it names instead:
    "what is the RTO for tier 1 systems?" then "and for tier 2?" asks the RTO of tier 2, not
    of tiers 1 and 2 (`replaced_in`)."""
    return f"{replaced_in(previous, follow_up)} {follow_up}"


def replaced_in(previous: str, follow_up: str) -> str:
    """The question before an elliptical follow-up without what the follow-up names instead:
    its one name of the shape the follow-up names (a number, a code, a name); of two, neither
    (which one is replaced is unsaid); else what follows the preposition the follow-up opens
    with ("... at brekken?" then "and at carn dubh?")."""
    earlier = _names(previous)
    before = previous
    for shape in {_shape(name) for name in _names(follow_up)}:
        alike = [name for name in earlier if _shape(name) == shape]
        if len(alike) == 1:
            previous = re.sub(rf"(?<![\w.-]){re.escape(alike[0])}(?![\w-])", "", previous, count=1)
    placed = _PLACED_AGAIN.match(follow_up)
    if previous == before and placed and words.terms(placed.group(2)) - _PRO_FORMS:
        # "... round the turbines at brekken?" then "and at carn dubh?": typed without
        # capitals, what follows the same preposition is what the follow-up replaces
        said = list(re.finditer(rf"\b{placed.group(1)}\s+[^?,;]+", previous, re.I))
        if said:
            previous = previous[: said[-1].start()] + previous[said[-1].end() :]
    return re.sub(r"\s+([?.,!])", r"\1", re.sub(r"\s{2,}", " ", previous)).strip()


# "and at carn dubh?", "what about for contractors?": a follow-up of a preposition and what
# it places the earlier question at
_PLACED_AGAIN = re.compile(
    r"\s*(?:and|but|what about|how about)\s+(at|in|on|for|from|during|with)\s+([^?]+?)\s*\??\s*$",
    re.I,
)


# Words standing for things named before ("and for the others?", "the rest", "that one").
_PRO_FORMS = words.terms("other others rest remaining one ones same")


def read_follow_up(previous: str, follow_up: str) -> Question:
    """An elliptical follow-up, read as the question before it asked of what it names
    instead. One naming a thing in words of its own and no name ("how long can pallets wait in
    the marshalling area?" then "and the trailer doors?") asks the earlier question of that
    thing: its subject is its own words (the earlier subject ranks a unit as a follow-up's
    does, at a share); one naming a name replaces the earlier name of that shape (restated)."""
    asked = read_question(restated(previous, follow_up))
    own = read_question(follow_up)
    if own.names or not own.terms - _PRO_FORMS:
        return asked
    return replace(asked, terms=own.terms, surface=own.surface, carried=asked.terms - own.terms)


MOST = "most"
LEAST = "least"
_MOST = re.compile(r"\b(?:best|highest|most|top|largest|biggest|greatest|longest|fastest)\b", re.I)
_LEAST = re.compile(
    r"\b(?:worst|lowest|least|smallest|fewest|cheapest|shortest|slowest|bottom)\b", re.I
)


# The ends of a measure ("most" and "least" left out: "the most common", "at least")
_MEASURE_MOST = re.compile(r"\b(?:longest|largest|highest|biggest|greatest|maximum|max)\b", re.I)
_MEASURE_LEAST = re.compile(r"\b(?:shortest|smallest|lowest|fewest|cheapest|minimum|min)\b", re.I)


def _extreme(text: str) -> str:
    most, least = _MEASURE_MOST.search(text), _MEASURE_LEAST.search(text)
    if bool(most) == bool(least):
        return ""
    return MOST if most else LEAST


def _superlative(text: str) -> str:
    most, least = _MOST.search(text), _LEAST.search(text)
    if bool(most) == bool(least):
        return ""
    return MOST if most else LEAST


# Informal spellings of a question's first words, read as written out.
_CONTRACTIONS = re.compile(r"\b(what|who|how|where|when|why|which|that|it|there)(?:['’]?s)\b", re.I)
# Words that phrase a request rather than name its subject.
REQUEST_WORDS = frozenset(
    words.terms(
        "need needs get gets got want wants use used using sorted exactly actually really please "
        "know tell find give make happen happens say says supposed meant allowed able "
        "ok okay fine right correct true "
        "roughly approximately approx basically finally "  # hedges: how sure, not what of
        "stuff thing things guys folks lads"  # placeholders: they name no subject
    )
)


# "how many times / ways": any count answers; the noun names no thing to count.
GENERIC_COUNTS = frozenset(words.terms("times time ways way kinds types sorts"))


def surface_words(text: str) -> tuple[tuple[str, str], ...]:
    """(term, word) for each term of `text`: the word it was read from (its weight in English
    is the word's, not the stem's)."""
    pairs: dict[str, str] = {}
    for word in re.findall(r"[\w'’.-]+", text):
        for term in words.terms(word):
            pairs.setdefault(term, word.strip(".'’-"))
    return tuple(pairs.items())


# A question that opens with a conjunction or a preposition and is no whole question after
# it ("and at Carn Dubh?", "or for the 4.2s?"), or asks "what about X?", leans on the question
# before it: closed classes of English words, not a corpus's phrasing.
_FREQUENCY_Q = re.compile(r"\bhow (?:often|frequently)\b|\bat what (?:interval|frequency)\b", re.I)
# A question that opens with a conjunction goes on from the conversation ("and what is
# proposed?", "but who signs it off?"): a first question does not open so.
_CONTINUES = re.compile(r"\s*(?:and|but|so|also|then|plus)\b", re.I)
# Third-person pronouns: the question is about something named before it. "that" and "this"
# are pronouns where their clause ends after them, or after a particle ("get back to me on
# that", "who signed this off?"), or where they are asked about ("is that still the rule?");
# elsewhere they join a clause ("the system that fell over") or qualify a noun.
_REFERS_BACK = re.compile(
    r"\b(?:it|its|it['’]s|they|them|their|theirs)\b|"
    # "one" standing for a thing named before ("how long do we wait for one after ordering?"),
    # not a number of something ("one week") nor "no one"
    r"(?<!\bno )(?<!\bthe )\bones?\b(?=\s*(?:[?!.,;:]|$|(?:after|before|from|in|at|on|for|to|when|if)\b))|"
    r"\b(?:that|this)(?:\s+(?:off|up|out|over|back|down|through))?\s*(?:[?!.,;:]|$)|"
    rf"\b{_AUX}\s+(?:that|this)\b",
    re.I,
)
_LEANING = re.compile(
    r"\s*(?:(?:and|but|or|so|also|then)\b(?!\s+(?:what|which|who|whom|whose|when|where|why|"
    rf"how|{_AUX})\b)|(?:at|in|on|for|from|with|without|by|during|after|before)\b|"
    r"(?:and\s+)?(?:what|how)\s+about\b)",
    re.I,
)


# The phrase a compare word governs ends at a preposition or the end of the clause.
_PHRASE_END = re.compile(
    r"\b(?:in|on|of|for|at|during|after|from|by|with|when|if|than|and|or)\b|[,;?!]", re.I
)


def _in_order(kind: str, asked: str) -> tuple[str, ...]:
    """The two sides of a yes/no question that orders two events in time, the one it asks to
    come first first: "the trust founded", "the pier opened" of "was the trust founded before
    the pier opened?" (and of "did the pier open after the trust was founded?"); () when it
    orders nothing, asks in the present ("can we restart it after a trip?") or one side names
    nothing ("was it before?")."""
    # (of things done: "can the ROC reset a turbine after an overspeed trip?" asks what may
    # be done after it, not when)
    found = list(_ORDER.finditer(asked)) if kind == YESNO and _PAST_TENSE.search(asked) else []
    if len(found) != 1:
        return ()
    order = found[0]
    first, second = asked[: order.start()], asked[order.end() :]
    if not (words.terms(first) and words.terms(second)):
        return ()
    return (first, second) if order.group(1) else (second, first)


def _against(text: str) -> tuple[str, ...]:
    """The terms of what "within the SLA target" / "hit the trace target" compares with,
    in order; empty when that is a value ("within 4 hours")."""
    found_words = list(_COMPARE.finditer(text))
    if not found_words:
        return ()
    phrase = _PHRASE_END.split(text[found_words[-1].end() :], maxsplit=1)[0]
    if _measures(phrase):
        return ()
    terms: list[str] = []
    for word in re.findall(r"[\w'’.-]+", phrase):
        terms.extend(t for t in sorted(words.terms(word)) if t not in terms)
    return tuple(terms)


# "what's the restore target for a P1 and how long was it actually down?": a target and what
# happened, asked together; the answer holds the measurement against the target
_TARGET_NAMED = re.compile(
    r"((?:[\w-]+\s+){0,2}?(?:target|targets|sla|deadline|limit|goal|standard)s?)\b", re.I
)
_ACTUAL = re.compile(
    rf"\b(?:{_ACTUALLY}|did (?:it|that|this|they|we)\s+(?:\w+\s+)?(?:take|last))\b", re.I
)


def _target_and_actual(kind: str, asked: str) -> tuple[str, ...]:
    """For a two-part span question naming a target in one part and asking what actually
    happened in the other: the terms of the target's name, in order (see `_against`)."""
    if kind != DURATION:
        return ()
    parts = _SECOND_QUESTION.split(asked, maxsplit=1)
    if len(parts) < 2:
        return ()
    named = next(filter(None, (_TARGET_NAMED.search(part) for part in parts)), None)
    if named is None or not any(_ACTUAL.search(part) for part in parts):
        return ()
    terms: list[str] = []
    for word in re.findall(r"[\w'’.-]+", named.group(1)):
        terms.extend(t for t in sorted(words.terms(word)) if t not in terms)
    return tuple(terms)


# values a question states to narrow its case (a plain number is too common to tell by):
# values.MEASURED_KINDS


def read_question(text: str) -> Question:
    """The reading of one question (a follow-up is read on its own; the conversation adds
    its previous subject elsewhere)."""
    text = words.respelled(" ".join(text.split()))  # "actualy": actually; "r": are
    text = _CONTRACTIONS.sub(lambda m: f"{m.group(1)} is", text)
    asked = _asked_clause(text)  # what the question's own words ask (its kind, its verb)
    # two questions joined by "and": a first asking who, where, when or why says what kind
    # of thing is asked for, the second what else is ("who do i ring and how fast does it
    # get blocked?": a person); one asking what or how much is read with the second ("what's
    # the restore target and how long was it down?": spans of time)
    first = _SECOND_QUESTION.split(asked, maxsplit=1)[0]
    kind = _kind(first)
    # ("who checks the list and how often?": a person, then how often: Question.also_kinds)
    kind_of_first = first != asked and kind not in (WHAT, WHICH, NUMBER)
    if kind in (WHAT, WHICH, NUMBER):
        kind = _kind(asked)
    reported, claim, told = _claim(text)
    for sentence in told:  # the question, without the readings it checks
        text = " ".join(text.replace(sentence, " ").split())
    claimed = frozenset(
        v.kind
        for v in values.values_in(claim)
        if v.kind in values.NUMERIC_KINDS and not values.is_attributive(v, claim)
    )
    if claimed and kind in (WHAT, WHICH, NUMBER):
        # "P1s get 6 hours to fix. what is the actual target?": a span, as claimed
        kind = DURATION if claimed == {values.DURATION} else NUMBER
    subject = _LETTER_PAIR.sub(" ", _FRAME.sub(" ", _ANSWER_FORM.sub(" ", reported)))
    # (what it sets aside stays among its words: the unit listing it with the answer says
    # them, "Sweden received Western Pomerania, Wismar and ..." for "besides Wismar, ...")
    excluding = _EXCLUDING.search(subject) if kind not in (YESNO, HOWTO) else None
    excluded = words.terms(excluding.group(1)) if excluding else frozenset()
    then = _second_question(text)
    if then:
        # "how long do we keep backups, and where is the off-site copy?": the first question
        # is what the kind asks of; the second is answered after it (Question.then)
        subject = _SECOND_QUESTION.split(subject, maxsplit=1)[0]
    if kind == DURATION:
        subject = _SPAN_VERB.sub(" ", subject)
    if _value_kinds(kind, asked) == {values.MONEY}:
        # "what r we paying for X?": the amount answers, however the document says it is paid
        subject = _PAYING.sub(" ", subject)
    for frame in (_RELATIVE_TIME, _PAST, _PAST_BEFORE, _CURRENT, _COMPARE_FRAME, _MOST, _LEAST):
        subject = frame.sub(" ", subject)
    in_order = _in_order(kind, asked)
    asks_past = bool(
        _PAST.search(text)
        or (not in_order and _PAST_BEFORE.search(text) and _PAST_TENSE.search(text))
    )
    # a date in a question in the past tense asks what held then ("what did we use in 2019?")
    as_of = history.asked_date(text) if (asks_past or _PAST_TENSE.search(text)) else None
    kind_spans: set[str] = set()
    for value in reversed(values.values_in(subject)):
        if values.is_attributive(value, subject):
            # "the 10 minute averages" name what it is about
            kind_spans |= words.terms(value.text)
        elif value.kind in values.NUMERIC_KINDS and value.kind != values.COUNT:
            # "kept for half a year?": the value asked about, not what it is about
            subject = subject[: value.start] + " " + subject[value.end :]
    counted_match = _COUNTED.search(text)
    relation = _relation(kind, asked)
    heights = _HOW_TALL.search(asked)
    if heights:
        # "how tall is the lighthouse?": what says a height in words answers ("rises 35
        # metres", "35 metres high"), not any length ("18 kilometres off the coast")
        relation |= _HEIGHT_WORDS
    rejecting = _rejecting(asked) if kind in (PERSON, DATE) else None
    if rejecting:
        relation = _REJECTED
        subject = subject.replace(rejecting.group(0), " ")
    if _deciding(relation) and not rejecting:
        # "who made the call", "who signed it off", "who gave the go-ahead": who decided or
        # approved it, as records say ("Decided by", "approved by")
        relation |= _DECIDED
    target_and_actual = _target_and_actual(kind, asked)
    plural = _PLURAL_AFTER_WH.search(asked)
    wants_list = bool(_LIST_WORDS.search(text) or (plural and kind in (WHAT, WHICH, NUMBER))) and (
        kind not in (DURATION, DATE, PERSON)
    )
    if kind == PERSON and (_WHO_ARE.match(asked) or _WHO_IS_ON.match(asked)):
        wants_list = True  # "who are the duty managers?", "who's on the board?": every one
    if kind == NUMBER and counted_match:
        wants_list = False  # "how many nodes" wants the number, not the nodes
    found = words.identifiers(text)
    qualifiers = _qualifiers(text)
    named = _names(reported)
    described = _DESCRIBED.search(text)
    return Question(
        text=text,
        kind=kind,
        value_kinds=claimed or _value_kinds(kind, asked),
        preferred_kinds=claimed
        or (
            _COMPARED_KINDS
            if kind == YESNO and _COMPARE.search(asked)
            else _PREFERRED_KINDS.get(kind, _value_kinds(kind, asked))
        ),
        terms=(words.terms(subject) - REQUEST_WORDS)
        | (relation & (_DECIDED | _REJECTED | _HEIGHT_WORDS)),
        surface=surface_words(subject),
        names=tuple(
            name for name in named if name not in qualifiers and not names_excluded(name, excluded)
        ),
        kind_spans=frozenset(kind_spans),
        identifiers=tuple(token.lower() for token in (*found.exact, *found.slug_like)),
        counted=(words.terms(counted_match.group(1)) - GENERIC_COUNTS)
        if counted_match
        else frozenset(),
        measured_in=_measured_in(text),
        wants_list=wants_list,
        asks_past=asks_past,
        as_of=as_of,
        leaving=_leaving(text, kind),
        asks_current=bool(_CURRENT.search(text)),
        asks_alternatives=bool(_ALTERNATIVES.search(text) or rejecting),
        compares=(kind == YESNO and bool(_COMPARE.search(asked))) or bool(target_and_actual),
        against=_against(asked) if kind == YESNO else target_and_actual,
        elliptical=bool(_LEANING.match(text)),
        refers_back=bool(_REFERS_BACK.search(text)),
        continues=bool(_CONTINUES.match(text)),
        asks_frequency=bool(_FREQUENCY_Q.search(first if kind_of_first else text)),
        asks_requirements=bool(_NEEDS_Q.search(asked)),
        superlative=_superlative(text),
        extreme=_extreme(text),
        describes=bool(described),
        described=_described(text, described),
        asks_year=bool(_YEAR_Q.search(text)),
        relation=relation,
        decides=_deciding(relation),
        # (a claim's values are what is checked, not what narrows the case)
        stated=()
        if claimed
        else tuple(v for v in values.values_in(text) if v.kind in values.MEASURED_KINDS),
        identifies=_identifies(asked) if kind in (NUMBER, WHAT, WHICH) else "",
        then=then,
        # ...or a claim that something is kept so long ("we keep logs for 7 days. right?")
        keeps=(kind == DURATION and bool(_KEEPS_Q.match(asked)))
        or (values.DURATION in claimed and bool(KEEPING & words.terms(claim))),
        proposal=bool(_PROPOSAL_Q.search(text)),
        also_kinds=_also_kinds(kind, asked),
        at_the_time=bool(_AT_THE_TIME.search(text)),
        negated=kind not in (YESNO, HOWTO, REASON) and bool(_NEGATED.search(asked)),
        denied=_denied_words(asked) if kind not in (YESNO, HOWTO, REASON) else frozenset(),
        ranks=tuple(values.ranked_nouns(text).items()),
        checked=_checked(kind, asked, claim),
        restricted_to=_restricted_to(reported),
        asks_change=bool(_CHANGED_Q.search(text)),
        role_qualifiers=_role_qualifiers(asked) if kind == PERSON else frozenset(),
        in_order=in_order,
        excluded=excluded,
        excluded_names=tuple(name for name in named if names_excluded(name, excluded)),
        property_asked=_property_of(asked) if kind in (WHAT, WHICH) else frozenset(),
        opposed=words.negated_with_un(asked) if kind not in (YESNO, HOWTO) else (),
    )


def names_excluded(name: str, excluded: frozenset[str]) -> bool:
    """The name is of what the question sets aside (`Question.excluded`)."""
    return bool(excluded) and words.terms(name) <= excluded


RESTRICTING_WEIGHT = 0.5  # a word weighing less in English ("going", "people") narrows nothing


# "who was the consulting engineer", "who's the deputy HSE manager": the words before the
# kind of person asked for
_QUALIFIED_PERSON = re.compile(
    r"^\s*(?:and\s+)?who(?:['’]s|\s+is|\s+was|\s+are|\s+were)\s+(?:the|our|their|its|a|an)\s+"
    rf"((?:[\w'’-]+\s+){{1,2}}?)(?:{_PERSON_NOUNS}|{values.ROLE_NOUN_PATTERN})\b",
    re.I,
)


def _role_qualifiers(asked: str) -> frozenset[str]:
    """The words qualifying the kind of person a who-question asks for, less the commonest
    English words ("the first rector": none)."""
    match = _QUALIFIED_PERSON.match(asked)
    return _weighty_terms(match.group(1).split()) if match else frozenset()


def _weighty_terms(phrase: Sequence[str]) -> frozenset[str]:
    """The terms of the phrase's words that weigh something in English (RESTRICTING_WEIGHT)."""
    return frozenset(
        term
        for word in phrase
        if words.english_weight(word) >= RESTRICTING_WEIGHT
        for term in words.terms(word)
    )


# "for children", "for the Carn Dubh turbines", "for rope access work": the words after "for"
# and its determiners, up to a word of the question form or a mark
_FOR_PHRASE = re.compile(
    r"\bfor\s+(?:(?:a|an|the|our|my|your|their|its|this|that|these|those|each|every)\s+)*"
    r"([A-Za-z][\w'’-]*(?:\s+(?!for\b)[A-Za-z][\w'’-]*){0,3})",  # (not into the next "for")
    re.I,
)
# "for good", "for now", "for ages", "for whoever": an idiom or a pronoun narrows nothing
_FOR_IDIOMS = frozenset(
    "good now ever ages sure example instance once long while whoever whatever whichever".split()
)


# "when they left Framheim for the pole", "headed for Oslo": where a journey goes, not a
# narrowing of what is asked
_JOURNEY_BEFORE = re.compile(
    r"\b(?:left|leaves?|leaving|set (?:out|off|sail)|head(?:s|ed|ing)?|bound|sail(?:s|ed|ing)?|"
    r"depart(?:s|ed|ing)?|flew|fl(?:y|ies|ying)|travel(?:s|led|ed|ling|ing)?|went|return(?:s|ed|ing)?)"
    r"\b(?:\s+[\w'’-]+){0,3}\s*$",
    re.I,
)


# "what was the magnitude of the earthquake?": the property asked of a thing, the word before
# "of" among those naming what is asked for (`_ASKED_NOUN`); not what it is called ("the name
# of"), nor one end ("the smallest of")
_NAMING_NOUNS = frozenset(words.terms("name names title"))


def _property_of(asked: str) -> frozenset[str]:
    named = _asked_words(_ASKED_NOUN.match(asked))
    if "of" not in named[1:]:
        return frozenset()
    head = named[named.index("of") - 1]
    return frozenset() if head.endswith("est") else words.terms(head) - _NAMING_NOUNS


def _restricted_to(text: str) -> tuple[frozenset[str], ...]:
    """What each "for" phrase naming a thing narrows the question to: its words, up to the
    first stop word, less the commonest English words."""
    found = []
    spans = [(v.start, v.end) for v in values.values_in(text) if v.kind in values.NUMERIC_KINDS]
    for match in _FOR_PHRASE.finditer(text):
        if any(start <= match.start(1) < end for start, end in spans):
            continue  # "kept for half a year": the value asked about, not what it is about
        if match.group(1).split()[0].lower().endswith("ing"):
            continue  # "for climbing a turbine", "for working nights": what is done, said many ways
        if _JOURNEY_BEFORE.search(text[: match.start()]):
            continue
        phrase = []
        for word in match.group(1).split():
            if word.lower() in words.STOPWORDS or word.lower() in _FOR_IDIOMS:
                break
            phrase.append(word)
        kept = _weighty_terms(phrase)
        if kept:
            found.append(kept)
    return tuple(found)


# A yes/no question that says a value is so opens with a verb of being or doing ("is the
# window 14 days?", "do we keep logs for a year?"); one asking leave ("can I ...", "is it ok
# to ...") or naming a bound ("up to an hour", "at least 2 people") checks no value.
_STATES_VALUE = re.compile(
    r"^\s*(?:and\s+|so\s+)?(?:is|are|was|were|do|does|did|has|have|had)\b(?!\s+it\s+ok)", re.I
)


def _checked(kind: str, asked: str, claim: str) -> tuple[values.Value, ...]:
    """The values a yes/no question says are so: a claim's ("tom said we keep logs for 7
    days. is that right?"), or its own when it says that something is so much ("are raw
    messages now kept for half a year?"), never a bound ("for up to an hour"); none for a
    question that compares ("within the target?")."""
    text = claim or asked
    if kind != YESNO or _COMPARE.search(asked) or not (claim or _STATES_VALUE.match(asked)):
        return ()
    return tuple(
        v
        for v in values.values_in(text)
        if v.kind in values.NUMERIC_KINDS - {values.COUNT}
        and not values.is_attributive(v, text)
        and not values.LIMIT_BEFORE.search(text[: v.start])
    )
