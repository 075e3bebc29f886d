"""The one word model: how Groundwork reads words, for retrieval and for answers alike.

Content terms (lower-cased, a small English stop list dropped, lightly stemmed, compounds
split into their parts too), inverse document frequency, and the identifiers a text names
(ADR-0005, GW-4021, INGEST_DEDUPE_FAIL_OPEN, SQS, a slug, a quoted title). The reranker's
heading/tag/preamble signals, the evidence gate and the answer engine all read words here,
so a word that counts for finding a passage counts for quoting it too.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from string import ascii_lowercase

_TOKEN = re.compile(r"[a-z0-9]+(?:[-_.][a-z0-9]+)*")
_SEPARATOR = re.compile(r"[-_.]")

# Small English stop list: only content words count (an indefinite pronoun or a modal verb
# says nothing of what is asked about; nor does a contraction typed without its apostrophe,
# a greeting or a courtesy).
STOPWORDS = frozenset(
    """a about after again all also am an and any are as at be because been before being
    between both but by can could did do does doing don down during each few for from further
    had has have having he her here hers him his how i if in into is it its itself just me
    myself yourself yourselves himself herself ourselves themselves
    more most my no nor not now of off on once only or other our ours out over own same she
    should so some such than that the their theirs them then there these they this those
    through to too under until up very was we were what when where which while who whom why
    will with would you your yours whats thats whos hows wheres whens whys theres heres many
    much often someone somebody anyone anybody everyone everybody something anything must
    might shall us dont doesnt didnt isnt arent wasnt werent hasnt havent hadnt cant wont
    shouldnt wouldnt couldnt im ive youre theyre weve hi hey hello please pls plz thanks
    thank thx cheers""".split()
)
# The tail of a contraction or a possessive ("Kelvar's", "it’s", "doesn't", "we'll"): not a
# word of its own. "n't" leaves its verb ("doesn't" -> "does"), a stop word.
_CONTRACTION = re.compile(r"(?<=[a-z])(?:n['’]t|['’](?:s|re|ve|ll|d|m))\b")
_IRREGULAR_NOT = {"can": "can", "won": "will", "shan": "shall"}  # can't, won't, shan't
_NOT = re.compile(r"\b(can|won|shan)['’]t\b")


def _uncontracted(text: str) -> str:
    return _CONTRACTION.sub("", _NOT.sub(lambda m: _IRREGULAR_NOT[m.group(1)], text))


# English verbs whose past forms share no stem with them: read as the verb.
IRREGULAR = {
    **dict.fromkeys(("kept",), "keep"), **dict.fromkeys(("wrote", "written"), "write"),
    **dict.fromkeys(("built",), "build"), **dict.fromkeys(("made",), "make"),
    **dict.fromkeys(("held",), "hold"), **dict.fromkeys(("sold",), "sell"),
    **dict.fromkeys(("paid",), "pay"), **dict.fromkeys(("ran",), "run"),
    **dict.fromkeys(("sent",), "send"), **dict.fromkeys(("spent",), "spend"),
    **dict.fromkeys(("chose", "chosen"), "choose"), **dict.fromkeys(("took", "taken"), "take"),
    **dict.fromkeys(("gave", "given"), "give"), **dict.fromkeys(("began", "begun"), "begin"),
    **dict.fromkeys(("went", "gone"), "go"), **dict.fromkeys(("found",), "find"),
    **dict.fromkeys(("brought",), "bring"), **dict.fromkeys(("bought",), "buy"),
    **dict.fromkeys(("told",), "tell"), **dict.fromkeys(("knew", "known"), "know"),
    **dict.fromkeys(("drove", "driven"), "drive"), **dict.fromkeys(("rose", "risen"), "rise"),
    **dict.fromkeys(("fell", "fallen"), "fall"), **dict.fromkeys(("broke", "broken"), "break"),
    **dict.fromkeys(("spoke", "spoken"), "speak"), **dict.fromkeys(("won",), "win"),
    **dict.fromkeys(("lost",), "lose"), **dict.fromkeys(("shut",), "shut"),
    **dict.fromkeys(("set",), "set"), **dict.fromkeys(("led",), "lead"),
    **dict.fromkeys(("drew", "drawn"), "draw"), **dict.fromkeys(("grew", "grown"), "grow"),
    **dict.fromkeys(("threw", "thrown"), "throw"), **dict.fromkeys(("flew", "flown"), "fly"),
}  # fmt: skip
# The names of the months and the days of the week: a time, never the name of a thing
CALENDAR_WORDS = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday""".split()
)
# The short forms of the months a reader types ("the feb outage"); not "may" (a verb)
_SHORT_MONTHS = {
    "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june",
    "jul": "july", "aug": "august", "sep": "september", "sept": "september", "oct": "october",
    "nov": "november", "dec": "december",
}  # fmt: skip


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A deliberately light suffix strip so 'caching'/'caches' meet 'cach' and 'rules' 'rule'
    (and the irregular past forms of common verbs meet their verb: kept ~ keep)."""
    if word in IRREGULAR:
        return IRREGULAR[word]
    if word in _SHORT_MONTHS:
        return _SHORT_MONTHS[word]
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


# the endings `stem` leaves on a short word ("buying": a word of six letters keeps its "ing")
_ENDING = re.compile(r"(?:ing|ed|d|es|s)")


def form_of(word: str, stems: Collection[str]) -> bool:
    """The word is one of `stems` as `terms` reads it, or one of them with an ending that
    `stem` leaves on a short word ("buying" of "buy"); not a longer word a stem starts
    ("form" is no form of "formulat")."""
    lowered = word.lower()
    return bool(terms(word) & frozenset(stems)) or any(
        lowered.startswith(s) and _ENDING.fullmatch(lowered[len(s) :]) is not None for s in stems
    )


@lru_cache(maxsize=8192)  # the reranker reads the same headings and openings on every search
def terms(text: str) -> frozenset[str]:
    """Lower-cased, lightly stemmed content terms; compound tokens also yield their parts."""
    out: set[str] = set()
    for token in _TOKEN.findall(_uncontracted(fold(text.lower()))):
        if token[-1] == "s" and token[-2:-1].isdigit() and ("." in token or token[0].isalpha()):
            token = token[:-1]  # "the 4.2s": the model 4.2; "P1s", "SF-2s": the codes
        parts = [token, *_SEPARATOR.split(token)] if _SEPARATOR.search(token) else [token]
        for part in parts:
            if part and part not in STOPWORDS:
                out.add(stem(part))
    return frozenset(out)


# Units of measure: a document writes the symbol where a reader types the name ("how many
# megawatts" ~ "201.6 MW", "kilometres" ~ "km"). By symbol, lower-cased; the names singular.
UNIT_NAMES = {
    "m": ("metre", "meter"), "km": ("kilometre", "kilometer"), "cm": ("centimetre", "centimeter"),
    "mm": ("millimetre", "millimeter"), "mi": ("mile",), "ft": ("foot", "feet"),
    "g": ("gram",), "kg": ("kilogram",), "t": ("tonne", "ton"), "lb": ("pound",),
    "l": ("litre", "liter"), "ml": ("millilitre", "milliliter"),
    "w": ("watt",), "kw": ("kilowatt",), "mw": ("megawatt",), "gw": ("gigawatt",),
    "kwh": ("kilowatt-hour", "kilowatt hour"), "mwh": ("megawatt-hour", "megawatt hour"),
    "gwh": ("gigawatt-hour", "gigawatt hour"), "v": ("volt",), "kv": ("kilovolt",),
    "kva": ("kilovolt-ampere",), "mva": ("megavolt-ampere",),
    "a": ("ampere", "amp"), "hz": ("hertz",), "kb": ("kilobyte",), "mb": ("megabyte",),
    "gb": ("gigabyte",), "tb": ("terabyte",), "gib": ("gibibyte",), "mib": ("mebibyte",),
    "tib": ("tebibyte",), "mph": ("miles per hour",), "km/h": ("kilometres per hour",),
    "rpm": ("revolutions per minute",),
}  # fmt: skip


def _unit_forms() -> dict[str, str]:
    forms: dict[str, str] = {}
    for symbol, names in UNIT_NAMES.items():
        for name in names:
            for written in (name, f"{name}s", f"{name}es"):
                forms[written] = symbol
                forms[stem(written)] = symbol
    return forms


_UNIT_FORMS = _unit_forms()
_UNIT_SYMBOL_OF = {
    symbol: frozenset(form for form, of in _UNIT_FORMS.items() if of == symbol)
    for symbol in UNIT_NAMES
}


# What a unit of measure measures: a question asking for a speed is answered by "15 m/s".
_MEASURES = {
    "speed velocity": ("m/s", "km/h", "mph", "kn"),
    "temperature": ("°c", "°f"),
    "weight mass": ("g", "kg", "t", "lb"),
    "length distance height depth width altitude elevation": ("mm", "cm", "m", "km", "mi", "ft"),
    "power": ("w", "kw", "mw", "gw"),
    "energy": ("kwh", "mwh", "gwh"),
    "voltage": ("v", "kv"),
    "pressure": ("bar",),
}  # (not "current", "volume" or "load": everyday words for other things)


@lru_cache(maxsize=256)
def measured_by(symbol: str) -> frozenset[str]:
    """The terms of what a unit of measure measures ("m/s" -> speed, velocity); empty for a
    unit this model does not place."""
    symbol = symbol.lower().replace(" ", "")
    found = [terms(names) for names, symbols in _MEASURES.items() if symbol in symbols]
    return frozenset().union(*found)


def unit_symbol(word: str) -> str:
    """The symbol of a unit of measure written as a name or a symbol ("megawatts", "MW" ->
    "mw"); "" for a word that names no unit."""
    word = word.lower().strip()
    if word in UNIT_NAMES:
        return word
    return _UNIT_FORMS.get(word, "")


_PUNCTUATION = "\"'“”‘’()[]{},.;:!?"


def content_words(text: str) -> str:
    """The text's words as written, without the stop words ("how many beds at st brigids?"
    -> "beds st brigids?"): what a keyword share of a question should weigh."""
    kept = []
    for word in text.split():
        bare = _uncontracted(fold(word.lower())).strip(_PUNCTUATION)
        if bare not in STOPWORDS:
            kept.append(word)
    return " ".join(kept)


def fold(text: str) -> str:
    """Letters without their accents (Dvořák -> Dvorak, Münster -> Munster); other non-ASCII
    characters are left as they are."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def overlap(query_terms: Collection[str], text: str) -> float:
    """Fraction of the query terms present in `text` (0 when the query has no terms)."""
    if not query_terms:
        return 0.0
    # Every term of a text is a prefix of a part of one of its lower-cased tokens, so a
    # query term that is not a substring of the lower-cased text cannot be among them:
    # most candidate texts are never tokenised (the reranker's main cost per search).
    lowered = text.lower()
    if not any(term in lowered for term in query_terms):
        return 0.0
    return len(set(query_terms) & terms(text)) / len(query_terms)


def matching(wanted: Iterable[str], present: Collection[str]) -> set[str]:
    """The wanted terms present, also in another form of the same word: a prefix of a longer
    form (sign ~ signature; a three-letter stem only a few letters short: max ~ maximum, own
    ~ owner, and so owns ~ owner), one stem with other endings (approve ~ approval,
    operation ~ operator), or an abbreviation that keeps its word's first letters in order
    (dept ~ department, mgr ~ manager)."""
    wanted = frozenset(wanted)
    present = present if isinstance(present, frozenset) else frozenset(present)
    return set(_matching(wanted, present))


@lru_cache(maxsize=65536)
def _matching(wanted: frozenset[str], present: frozenset[str]) -> frozenset[str]:
    found = set(wanted & present)
    for term in wanted - found:
        # a unit's name and its symbol are one word (megawatts ~ MW); one-letter symbols
        # (m, t, l) are too ambiguous on their own
        symbol = _UNIT_FORMS.get(term) or (term if term in UNIT_NAMES else "")
        if len(symbol) >= 2 and (symbol in present or _UNIT_SYMBOL_OF[symbol] & present):
            found.add(term)
    rest = [term for term in wanted - found if len(term) >= 3]
    if not rest:
        return frozenset(found)
    by_start: dict[str, list[str]] = {}
    for other in present:
        by_start.setdefault(other.replace("-", "")[:2], []).append(other)
    for term in rest:
        start = term.replace("-", "")[:2]
        if any(_same_word(term, other) for other in by_start.get(start, ())):
            found.add(term)
        elif (
            len(term) <= 4
            and not _VOWELS & set(term)
            and any(_skeleton_of(term, other) for other in present if other[:1] == term[:1])
        ):
            found.add(term)  # msgs ~ messages, hrs ~ hours
        elif len(term) >= 4 and term.isalpha() and not _transposed(term).isdisjoint(present):
            found.add(term)
    return frozenset(found)


def _transposed(term: str) -> frozenset[str]:
    """The word with two neighbouring letters swapped, its first letter kept: the commonest
    slip of typing (peices ~ pieces, recieve ~ receive)."""
    return frozenset(
        term[:i] + term[i + 1] + term[i] + term[i + 2 :]
        for i in range(1, len(term) - 1)
        if term[i] != term[i + 1]
    )


# A verb in -ify and its other forms (verified, verifies, verification): one word
_IFY = re.compile(r"^([a-z]{3,})i(?:fications?|fi|fy|f)$")


# A noun in -sion and its verb in -d or -t: decision ~ decide (and decided), inclusion ~
# include, extension ~ extend, permission ~ permit
_SION = re.compile(r"^([a-z]{3,}?)s?sions?$")


def _sion_of(noun: str, verb: str) -> bool:
    found = _SION.match(noun)
    if found is None:
        return False
    verb = verb.removesuffix("e")
    return verb[-1:] in ("d", "t") and verb[:-1] == found.group(1)


def _same_word(a: str, b: str) -> bool:
    if "-" in a + b and a.replace("-", "") == b.replace("-", ""):
        return True  # sf-2 ~ sf2, e-mail ~ email
    a, b = _IFY.sub(r"\1ify", a), _IFY.sub(r"\1ify", b)
    if a == b or _sion_of(a, b) or _sion_of(b, a):
        return True
    a, b = _root(a), _root(b)
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) < 3:
        return False
    if long_.startswith(short):
        return len(short) >= 4 or len(long_) - len(short) <= 4
    common = 0
    for x, y in zip(short, long_, strict=False):
        if x != y:
            break
        common += 1
    if common >= 5 and len(short) - common <= 4 and len(long_) - common <= 4:
        return True
    return _abbreviates(short, long_) or _skeleton_of(short, long_)


_VOWELS = frozenset("aeiou")


def _skeleton_of(short: str, long_: str) -> bool:
    """A short word of no vowel that is a longer word's consonants, each once (msg ~
    message, and so msgs ~ messages; hrs ~ hours, wks ~ weeks, yrs ~ years): typed that way
    for speed. An acronym keeps other letters (sms is not system)."""
    if not (2 <= len(short) <= 4) or not short.isalpha() or _VOWELS & set(short):
        return False
    if short[-1] == "s" and long_[-1] != "s":
        short = short[:-1]  # a plural
    consonants = [c for c in long_ if c not in _VOWELS]
    collapsed = "".join(c for i, c in enumerate(consonants) if i == 0 or c != consonants[i - 1])
    return len(short) >= 2 and len(long_) > len(short) and collapsed == short


def _root(term: str) -> str:
    """A word on a three-letter root without its ending (owns, fixes, fixed, fixing ~ fix):
    `stem` leaves words that short alone. Not loss, plus, speed or string."""
    if len(term) == 4 and term[-1] == "s" and term[-2] not in "siu":
        return term[:-1]
    if len(term) == 5 and term.endswith("es") and term[2] in "xszh":
        return term[:3]
    if len(term) == 5 and term.endswith("ed") and term[2] != "e" and _VOWEL.search(term[:3]):
        return term[:3]
    if len(term) == 6 and term.endswith("ing") and _VOWEL.search(term[:3]):
        return term[:3]
    return term


_VOWEL = re.compile(r"[aeiouy]")


def _abbreviates(short: str, long_: str) -> bool:
    """A 3-4 letter word that is an abbreviation of a word at least twice as long: the same
    first two letters, then its letters in order (ops ~ operations, mgr ~ manager)."""
    if not (3 <= len(short) <= 4) or len(long_) < 2 * len(short) or not short.isalpha():
        return False
    if short[-1] == "s" and long_[-1] != "s":
        short = short[:-1]  # a plural (ops ~ operations, whose term is operation)
    if long_[:2] != short[:2]:
        return False
    position = 2
    for letter in short[2:]:
        position = long_.find(letter, position)
        if position < 0:
            return False
        position += 1
    return True


# "Critical control points (CCPs)", "recovery time objective (RTO)": a written-out name and
# the capitals that stand for it, in brackets after it
_DEFINED = re.compile(r"\(([A-Z]{2,6})s?\)")


def acronyms(text: str) -> dict[str, str]:
    """The acronyms a text defines, each with the words it stands for: those just before its
    brackets whose first letters spell it ("Critical control points (CCPs)" -> {"CCP":
    "Critical control points"})."""
    found: dict[str, str] = {}
    for match in _DEFINED.finditer(text):
        letters = match.group(1)
        before = re.findall(r"[A-Za-z][\w'-]*", text[max(0, match.start() - 120) : match.start()])
        spelled = before[-len(letters) :]
        if len(spelled) == len(letters) and "".join(w[0] for w in spelled).upper() == letters:
            found.setdefault(letters, " ".join(spelled))
    return found


@lru_cache(maxsize=1)
def _frequencies() -> dict[str, float]:
    from wordfreq import get_frequency_dict

    return get_frequency_dict("en")


def _zipf(word: str) -> float:
    frequency = _frequencies().get(word, 0.0)
    return math.log10(frequency) + 9.0 if frequency > 0 else 0.0


TYPO_COMMONER = 2.5  # the word meant is this much commoner (Zipf: 10^2.5 times)...
TYPO_COMMON = 4.5  # ...and among the commonest words ("limit" 4.7, "actually" 5.5)
_LOWER_WORD = re.compile(r"(?<![\w'’-])[a-z]{4,}(?![\w'’-])")


@lru_cache(maxsize=4096)
def _meant(word: str) -> str:
    """The word one dropped or swapped letter away that is far commoner, or the word."""
    near = (_letter_added(word) | _letters_swapped(word)) - {word}
    best = max(near, key=_zipf)
    commoner = _zipf(best) >= TYPO_COMMON and _zipf(best) - _zipf(word) >= TYPO_COMMONER
    return best if commoner else word


# Chat spellings of short words, typed in lower case on their own ("r we still on X?", "swab
# n spray", "per yr"): not the letters R, U or N
_CHAT_SPELLED = {"r": "are", "u": "you", "ur": "your", "n": "and", "yr": "year", "yrs": "years"}
_CHAT_SPELLING = re.compile(r"(?<![\w'’/.&-])(?:yrs|yr|ur|r|u|n)(?![\w'’/.&-])")


def respelled(text: str) -> str:
    """The text with its slips of typing put right: a lower-case word of four letters or more
    one dropped or swapped letter from a far commoner English word ("actualy", "limt",
    "wich"). Names, codes and short words stay as typed ("aster", "tracto", "epr"); so does
    a word that is only a little rarer than its neighbour. Chat spellings of short words
    typed alone in lower case are those words ("r" are, "u" you, "ur" your, "n" and, "yr"
    year)."""
    slips_put_right = _LOWER_WORD.sub(lambda m: _meant(m.group(0)), text)
    return _CHAT_SPELLING.sub(lambda m: _CHAT_SPELLED[m.group(0)], slips_put_right)


def rare_words(text: str) -> list[str]:
    """The words of four letters or more a text types in lower case that are rare in English
    (`english_weight` 1.0: "rhenium", "titanium"): what a question may name without capitals."""
    return [
        word
        for word in dict.fromkeys(_LOWER_WORD.findall(text))
        if word not in STOPWORDS and english_weight(word) >= 1.0
    ]


TYPO_RARE = 3.0  # a word rarer than this may be a slip (misspellings reach 2.9: "recieve" 2.75)
MAX_SLIPS = 8  # ...looked up per question (a 10,000-character question is not 500 look-ups of 500)


def slips(text: str) -> dict[str, frozenset[str]]:
    """The lower-case words of `text` (four letters or more; a four-letter one only as a
    compound left unhyphenated) rare in English, each with the words one slip of typing
    away: a letter dropped, added or changed, two swapped ("tolerence": tolerance), or a
    hyphen left out ("undercharged": under-charged, "xray": x-ray). Which of
    those was meant is for the documents to say (`respelled_from`): English alone cannot
    tell a slip from a rare word. The first MAX_SLIPS only: each costs a few hundred
    look-ups, and a question is no list of rare words."""
    rare = [
        word
        for word in dict.fromkeys(_LOWER_WORD.findall(text))
        if word not in STOPWORDS and _zipf(word) < TYPO_RARE
    ]
    # (a four-letter word only as a compound the documents hyphenate: "xray" for X-ray)
    return {
        word: _one_slip(word) if len(word) > 4 else _hyphened(word) for word in rare[:MAX_SLIPS]
    }


def _hyphened(word: str) -> frozenset[str]:
    """A four-letter word as a compound hyphenated somewhere, the second part at least two
    letters: x-ray (and xr-ay)."""
    return frozenset(f"{word[:i]}-{word[i:]}" for i in range(1, len(word) - 1))


def _letter_added(word: str) -> set[str]:
    """The word with one letter put in anywhere: what it was meant to be if one was dropped."""
    return {word[:i] + c + word[i:] for i in range(len(word) + 1) for c in ascii_lowercase}


def _letters_swapped(word: str) -> set[str]:
    """The word with two neighbouring letters swapped, the first two included."""
    return {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}


def _one_slip(word: str) -> frozenset[str]:
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    dropped = {head + tail[1:] for head, tail in splits if tail}
    changed = {head + c + tail[1:] for head, tail in splits if tail for c in ascii_lowercase}
    # a compound written as one word where the documents hyphenate it (under-charged, and
    # after one letter: x-rays)
    hyphened = {
        f"{head}-{tail}"
        for head, tail in splits
        if (len(head) >= 2 and len(tail) >= 3) or len(head) == 1
    }
    near = dropped | changed | hyphened | _letter_added(word) | _letters_swapped(word)
    return frozenset(near - {word})


def respelled_from(text: str, found: dict[str, frozenset[str]], known: dict[str, str]) -> str:
    """The text with the slips of `found` (see `slips`) put right by the documents' words:
    `known` maps each word they use (by stem) to that stem. A slip none of them uses becomes
    the word one slip away that they do ("kestel" where they say Kestle); one that shares
    its stem with a far commoner English word is that word ("tolerence": tolerance). Where
    two words are as near and mean different things (engine and engineer for "enginer"),
    the slip stays as typed. Of the spellings of one word, the English one first, then a
    letter changed or swapped before one dropped or added. A rare word the documents use
    stays as typed, and so does one nothing they say is near."""
    fixes: dict[str, str] = {}
    for word, near in found.items():
        if word in known:
            stem = known[word]
            used = [
                w for w in near if known.get(w) == stem and _zipf(w) - _zipf(word) >= TYPO_COMMONER
            ]
            if len(used) > 1:
                continue  # "enginer": engine or engineer, one stem
        else:
            used = [w for w in near if w in known]
            if len({known[w] for w in used}) > 1:
                continue  # two words of the documents, neither more likely
            # (never a word rarer in English than the one typed: "narrowest" is no slip for
            # "narrowent", whose stem the documents use; a hyphen left out is the same word)
            used = [w for w in used if "-" in w or _zipf(w) >= _zipf(word)]
        if used:
            fixes[word] = min(used, key=lambda w: (-_zipf(w), len(w) != len(word), w))
    if not fixes:
        return text
    return _LOWER_WORD.sub(lambda m: fixes.get(m.group(0), m.group(0)), text)


NAME_RARE = 3.5  # a word the documents write as a name is rarer in English than this (Zipf)
_MID_SENTENCE = re.compile(r"[a-z0-9,;]\s+$")


def _inside_sentence(document: str, start: int) -> bool:
    """The words at `start` come after others of their sentence, not opening it or a title."""
    return bool(_MID_SENTENCE.search(document[:start][-40:]))


def written_as_names(text: str, documents: Iterable[str]) -> tuple[str, ...]:
    """The lower-case words of `text` the documents write only as a name ("brekken" where
    they say "Brekken Ridge"), as they write them: capitalised, at least once inside a
    sentence, never in lower case, and rare in English. A person types names in lower case;
    the documents say which words are names."""
    asked = [
        word
        for word in dict.fromkeys(re.findall(r"(?<![\w'’-])[a-z]{3,}(?![\w-])", text))
        if word not in STOPWORDS and _zipf(word) < NAME_RARE
    ]
    said = [fold(doc) for doc in documents]
    found: list[str] = []
    for word in asked:
        pattern = re.compile(rf"(?<![\w-]){word}(?![\w-])", re.IGNORECASE)
        written = [(doc, m) for doc in said for m in pattern.finditer(doc)]
        named = [doc[m.start() : m.end()] for doc, m in written if doc[m.start()].isupper()]
        inside = any(
            doc[m.start()].isupper() and _inside_sentence(doc, m.start()) for doc, m in written
        )
        if written and len(named) == len(written) and inside and not named[0].isupper():
            name = named[0] + _name_goes_on(text, word, named[0], said)
            found.append(_name_starts_before(text, word, name, said) + name)
    return tuple(found) + _names_of_common_words(text, said, found)


def _name_starts_before(text: str, word: str, name: str, documents: Sequence[str]) -> str:
    """The words before `word` in `text` that the documents write, capitalised, as the start
    of the same name ("saltings wwtw": "Saltings " of "Saltings WwTW"), never in lower case
    before it; "" when they do not."""
    before = re.search(rf"(?<![\w'’-])((?:[a-z]{{3,}}\s+){{1,2}}){word}(?![\w-])", text)
    if before is None:
        return ""
    start = ""
    for previous in reversed(before.group(1).split()):
        if previous in STOPWORDS:
            break
        phrase = rf"{previous}\s+{re.escape(start + name)}"
        capital = f"{previous.capitalize()} {start}{name}"
        if not _only_capitalised(phrase, capital, documents, first=True):
            break
        start = f"{previous.capitalize()} {start}"
    return start


def _names_of_common_words(
    text: str, documents: Sequence[str], found: list[str]
) -> tuple[str, ...]:
    """Two or three common words typed in lower case that the documents write only as one
    name, every word capitalised, at least once inside a sentence ("sydney harbour bridge":
    "Sydney Harbour Bridge", "harbour wall": "Harbour Wall"); not words a name found already
    holds."""
    typed = re.findall(r"(?<![\w'’-])[a-z]{3,}(?![\w'’-])", text)
    taken = {word.lower() for name in found for word in name.split()}
    names: list[str] = []
    start = 0
    while start < len(typed) - 1:
        for size in (3, 2):
            run = typed[start : start + size]
            if len(run) < size or any(w in STOPWORDS or w in taken for w in run):
                continue
            spaced = r"\s+".join(run)
            if not re.search(rf"(?<![\w'’-]){spaced}(?![\w'’-])", text):
                continue  # (not next to each other in the question)
            phrase = re.compile(rf"(?<![\w-]){spaced}(?![\w-])", re.IGNORECASE)
            written = [(doc, m) for doc in documents for m in phrase.finditer(doc)]
            forms = [m.group(0) for _, m in written]
            if (
                written
                and all(all(w[:1].isupper() and not w.isupper() for w in f.split()) for f in forms)
                and any(_inside_sentence(doc, m.start()) for doc, m in written)
            ):
                names.append(" ".join(forms[0].split()))
                start += size
                break
        else:
            start += 1
    return tuple(names)


def _name_goes_on(text: str, word: str, name: str, documents: Sequence[str]) -> str:
    """The words after `word` in `text` that the documents write, capitalised, as the rest of
    the same name ("brekken ridge": " Ridge" of "Brekken Ridge"), never in lower case after
    it; "" when they go on otherwise. A common English word is a name's part only there."""
    after = re.match(rf".*?(?<![\w'’-]){word}((?:\s+[a-z]{{3,}}){{1,2}})", text, re.S)
    if after is None:
        return ""
    rest = ""
    for next_word in after.group(1).split():
        if next_word in STOPWORDS:
            break
        phrase = rf"{re.escape(name + rest)}\s+{next_word}"
        capital = f"{name}{rest} {next_word.capitalize()}"
        if not _only_capitalised(phrase, capital, documents, first=False):
            break
        rest += f" {next_word.capitalize()}"
    return rest


def _only_capitalised(phrase: str, capital: str, documents: Sequence[str], *, first: bool) -> bool:
    """The documents write the phrase (a pattern, matched whatever its case) as `capital`,
    and never with its `first` word (else its last) in lower case: "Brekken Ridge", never
    "Brekken ridge"; "Saltings WwTW", never "saltings WwTW"."""
    found = re.compile(rf"(?<![\w-]){phrase}(?![\w-])", re.I)
    forms = [m.group(0) for doc in documents for m in found.finditer(doc)]
    word = capital.split()[0] if first else capital.split()[-1]
    return capital in forms and all(
        form.startswith(word) if first else form.endswith(word) for form in forms
    )


ENGLISH_WORD = 3.0  # a word this common in English (Zipf) is one, not a fragment ("ique")


def negated_with_un(text: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """The words of `text` that say "not" of another English word with "un" ("unsuccessful":
    successful, "unpaid": paid), each as (its terms, the plain word's terms); not a word that
    only starts so ("unit", "union", "under", "unless")."""
    found = []
    for word in dict.fromkeys(re.findall(r"(?<![\w'’-])un([a-z]{4,})(?![\w'’-])", text.lower())):
        if f"un{word}" not in STOPWORDS | {"unless"} and _zipf(word) >= ENGLISH_WORD:
            found.append((terms(f"un{word}"), terms(word)))
    return tuple(found)


@lru_cache(maxsize=65536)
def english_weight(word: str) -> float:
    """How much a word says on its own, by how common it is in English (wordfreq's Zipf
    scale): 1.0 for a rare word, a name or a code (Zipf <= 4: "titanium", "webhook"), down
    to 0.1 for the commonest ("the" 7.7); "answer" (5.2) weighs 0.6. A question's common
    words are often said differently by the document ("kept" for "retention"). A plural is
    as common as its singular ("averages" 3.6 is "average" 5.2)."""
    from wordfreq import zipf_frequency

    word = word.lower()
    forms = [word]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        forms.append(word[:-1])
        if word.endswith("ies"):
            forms.append(f"{word[:-3]}y")
        elif word.endswith("es"):
            forms.append(word[:-2])
    zipf = max(zipf_frequency(form, "en") for form in forms)
    return min(1.0, max(0.1, (7.0 - zipf) / 3.0))


def idf(total: int, df: int) -> float:
    """BM25's inverse document frequency (the +1 form, never negative)."""
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


# --- identifiers ---------------------------------------------------------------------------

# A token joined by - _ . or / (ADR-0005, ERR-NTF-6002, INGEST_DEDUPE_FAIL_OPEN,
# tracking.events.raw, dec-rate-limiting); trailing sentence punctuation is not part of it.
_IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[-_./][A-Za-z0-9]+)+")
# An acronym or code word in capitals (SQS, FLUSHALL, HMAC256): as exact as a code.
_CAPITALS = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]{2,}(?![\w-])")
_QUOTED = re.compile(r"[\"“”']([^\"“”']{4,120})[\"“”']")
_NUMERIC = re.compile(r"[\d.,/:-]+")
MAX_IDENTIFIERS = 5


@dataclass(frozen=True, kw_only=True)
class Identifiers:
    """What a text names exactly, in order of first appearance."""

    exact: tuple[str, ...]  # codes and names: matched in titles, ids, slugs and text
    slug_like: tuple[str, ...]  # lower-case-hyphen words: only a document slug counts
    titles: tuple[str, ...]  # quoted phrases: only a document title counts

    def __bool__(self) -> bool:
        return bool(self.exact or self.slug_like or self.titles)


def identifiers(text: str) -> Identifiers:
    """The identifiers `text` names: codes (ADR-0005, GW-4021, snake_case, dotted names,
    capitals such as SQS), lower-case slugs, and quoted titles. Numbers, dates and versions
    are not names."""
    exact: list[str] = []
    slug_like: list[str] = []
    for token in _IDENTIFIER.findall(text):
        if _NUMERIC.fullmatch(token):
            continue
        distinctive = (
            any(ch.isdigit() for ch in token)
            or "_" in token
            or (any(ch.isupper() for ch in token) and not token.istitle())
            or re.search(r"[a-z]\.[a-z]", token) is not None
        )
        target = exact if distinctive else slug_like
        if token not in target:
            target.append(token)
    for word in _CAPITALS.findall(text):
        if word not in exact:
            exact.append(word)
    titles = [m.strip() for m in _QUOTED.findall(text) if " " in m.strip()]
    return Identifiers(
        exact=tuple(exact[:MAX_IDENTIFIERS]),
        slug_like=tuple(s.lower() for s in slug_like[:MAX_IDENTIFIERS]),
        titles=tuple(titles[:MAX_IDENTIFIERS]),
    )
