"""The offline answer: the evidence brief as a few plain, cited sentences.

One direct sentence first (the unit that answers, from the most trusted source), then only
the quotes the answer needs: the rest of a list, the second fact of a two-part question, a
named disagreement, what replaced a superseded record, a warning about a rejected approach.
"""

from __future__ import annotations

import re
from dataclasses import replace

from chat.answers import history
from chat.answers import values as vals
from chat.answers.evidence import TRUST_HISTORY, UNDECIDED_STATUSES, EvidenceBrief, forbids, trust
from chat.answers.question import Question
from chat.answers.scoring import Scored
from chat.answers.units import STATUS, heading_context, with_context
from chat.prompt import PromptSource
from kb import words
from kb.models import STALE_STATUSES, CanonicalStatus
from kb.retrieval.types import SearchHit

MAX_REJECTED_WARNINGS = 2
COMPACT_ROWS = 3  # a longer list of table rows is quoted by their first cells


def _cite(sentence: str, n: int) -> str:
    body = sentence.strip()
    end = "."
    if body and body[-1] in ".!?":
        end = body[-1]
        body = body[:-1].rstrip()
    body = body.rstrip(":;,")
    return f"{body} [{n}]{end}"


def _describe(source: PromptSource) -> str:
    """How a sentence names a source: its title, and its status when it is a curated record."""
    hit = source.hit
    status = hit.canonical_status
    if hit.canonical_type and status:
        kind = hit.canonical_type.replace("-", " ")
        return f"{hit.title} (the {status} {kind})"
    return hit.title


def _quote(scored: Scored) -> str:
    return scored.unit.text


def _as_history(hit: SearchHit, later: str = "") -> str:
    """What a sentence quoting a superseded, deprecated or archived source ends with: that
    source and its status (" (Cache v1, now superseded)")."""
    return f" ({hit.title}, now {hit.canonical_status}{later})"


def _said(scored: Scored) -> str:
    """A unit quoted and cited; one from a superseded, deprecated or archived source says so
    in the very sentence that quotes it: an answer never states a stale value as current."""
    hit = scored.source.hit
    if hit.canonical_status in STALE_STATUSES:
        marked = f"{_quote(scored).rstrip('.!?')}{_as_history(hit)}"
        return _cite(marked, scored.source.n)
    return _cite(_quote(scored), scored.source.n)


def _cells(row: Scored) -> tuple[str, list[str]]:
    """A row's first cell and its other (non-empty) cells."""
    first, _, rest = row.unit.bare.partition(" — ")
    return first, rest.split("; ") if rest else []


def _row_cells(row: Scored, question: Question, two_columns: bool) -> str:
    """A table row in a list of rows: its first cell, and the cells of columns the question
    names ("SkyBlade Inspections (Total (of 50): 42)"), or all of them when it asks what
    changed."""
    first, cells = _cells(row)
    if two_columns and len(cells) == 1:
        # a two-column table is a list of labelled values ("Decided by: Helen Ward")
        return f"{first}: {cells[0].partition(': ')[2] or cells[0]}"
    asked = [
        cell
        for cell in cells
        # (every cell of a row of changes: what it was and what it is now)
        if question.asks_change
        or words.matching(question.terms, words.terms(cell.partition(":")[0]))
    ]
    if cells and _CODE_CELL.fullmatch(first.strip()) and cells[0] not in asked:
        # a code says nothing to a reader ("RM-1065"): the next cell names the thing
        asked.insert(0, cells[0])
    return f"{first} ({'; '.join(asked)})" if asked else first


# A cell that is only a code: letters and digits joined by a dash or a dot ("RM-1065",
# "ADR-0014", "QP-05"), or capitals and digits ("P1", "HB2")
_CODE_CELL = re.compile(r"[A-Za-z]{1,8}[-.]?\d[\w.-]*|[A-Z]+\d+")


def _heading_names_answer(lead: Scored, question: Question, quoted: str) -> bool:
    """The heading above the lead holds a value of the kind asked for, about the question's
    subject, that the quoted list does not say."""
    section = heading_context(lead.unit.section)  # "2. Required fields": 2 is no value
    kinds = question.value_kinds or question.preferred_kinds
    if not section or not kinds or not words.matching(question.terms, words.terms(section)):
        return False
    return any(v.kind in kinds and v.text not in quoted for v in vals.values_in(section))


def _list_lines(lead: Scored, siblings: tuple[Scored, ...], question: Question) -> list[str]:
    """A list quoted whole, in document order: its lead-in, then the items, each group of
    consecutive items from one source cited once."""
    items = sorted((lead, *siblings), key=lambda s: (s.source.hit.chunk_order, s.unit.position))
    runs: list[tuple[int, list[str]]] = []
    compact = len(items) > COMPACT_ROWS and all(i.unit.kind == "row" for i in items)
    stale = {
        item.source.n: item.source.hit
        for item in items
        if item.source.hit.canonical_status in STALE_STATUSES
    }
    # a two-column table is a list of labelled values; a row of a wider one may have one
    # cell only because the others are empty
    two_columns = all(len(_cells(item)[1]) <= 1 for item in items)
    for item in items:
        body = _row_cells(item, question, two_columns) if compact else item.unit.bare.rstrip(".;")
        if runs and runs[-1][0] == item.source.n:
            runs[-1][1].append(body)
        else:
            runs.append((item.source.n, [body]))
    context = lead.unit.context or ""
    quoted = f"{context} " + " ".join(body for _, bodies in runs for body in bodies)
    if _heading_names_answer(lead, question, quoted):
        # the name asked for is the heading the list sits under ("Larkspur Integration Hub as
        # our interface engine": Replaces ...): the answer says it
        heading = heading_context(lead.unit.section)
        context = f"{heading}: {context}" if context else heading
    lines = []
    for index, (n, bodies) in enumerate(runs):
        joined = "; ".join(bodies)
        if index == 0 and context:
            joined = f"{context.rstrip('.:; ')}: {joined}"
        if n in stale:
            joined += _as_history(stale[n])  # history, never the current list
        lines.append(_cite(joined, n))
    return lines


def _history(brief: EvidenceBrief, lead: Scored, status: str) -> list[str]:
    """A superseded, deprecated or archived record quoted as history: what replaced it leads
    a question about now; a question about the past, or about when something was left behind,
    gets the record, marked as past."""
    title = lead.source.hit.title
    replaced = brief.replaced_by
    successor = brief.successor
    quote = _quote(lead)
    # (asked when or why something was left behind, the record of that time tells it)
    asked_then = brief.question.asks_past or brief.question.asks_end or brief.in_force is not None
    if asked_then or replaced is None or successor is None:
        # history, marked as such in the very sentence that quotes it
        later = f"; replaced by {replaced.title}" if replaced is not None else ""
        body = quote.rstrip(".!?") if quote != title else f"{title} was the record"
        return [_cite(f"{body}{_as_history(lead.source.hit, later)}", lead.source.n)]
    opening = "No: " if brief.question.kind == "yesno" else ""
    verb = "replaced" if status == "superseded" else "replaces"
    now = brief.current
    now_unit = brief.current_unit
    # ...and what replaced that in turn, up to the record in force now
    then = f", which {now.title} replaced in turn" if now is not None else ""
    numbers = [successor.source.n, *([now_unit.source.n] if now_unit else [])]
    # the record in force says what holds now; a record between, replaced too, is history
    quoted = now_unit or successor
    when = brief.when_it_goes
    return [
        _cites(f"{opening}{title} is {status}; {replaced.title} {verb} it{then}", numbers),
        _said(quoted),
        *([_said(when)] if when is not None else []),
        _cite(f"{title} is {status} and kept for the record", lead.source.n),
    ]


def _cites(sentence: str, numbers: list[int]) -> str:
    """A sentence citing each source once, in order."""
    marks = "".join(f"[{n}]" for n in dict.fromkeys(numbers))
    return f"{sentence.rstrip('.')} {marks}."


def _dated(brief: EvidenceBrief) -> list[str]:
    """The sentence a dated question about a supersede chain opens with: which record was in
    force on the asked date, or when the asked one was replaced, citing both records."""
    asked = brief.question.as_of
    placed, following = brief.in_force, brief.in_force_next
    if placed is not None and asked is not None and placed.since is not None:
        here = brief.best_unit_of(placed.document_id)
        if here is None:
            return []
        numbers = [here.source.n]
        since = history.spoken(placed.since)
        if following is None:
            return [
                _cites(f"In {asked.text}, {placed.title} was in force (since {since})", numbers)
            ]
        later = brief.best_unit_of(following.document_id)
        if later is not None:
            numbers.append(later.source.n)
        until = f" on {history.spoken(following.since)}" if following.since else ""
        return [
            _cites(
                f"In {asked.text}, {placed.title} was in force (from {since}); "
                f"{following.title} replaced it{until}",
                numbers,
            )
        ]
    moved = brief.moved_off
    if moved is not None and moved.newer.since is not None:
        units = [brief.best_unit_of(ref.document_id) for ref in (moved.newer, moved.older)]
        numbers = [u.source.n for u in units if u is not None]
        if numbers:
            return [
                _cites(
                    f"{moved.newer.title} replaced {moved.older.title} on "
                    f"{history.spoken(moved.newer.since)}",
                    numbers,
                )
            ]
    return []


def _place(scored: Scored) -> tuple[int, int]:
    """Where a unit is in its document."""
    return scored.source.hit.chunk_order, scored.unit.position


def _before_in_procedure(unit: Scored, lead: Scored) -> bool:
    """A step of the lead's procedure (or a step's command) that comes before it: the same
    document, under the same heading, earlier."""
    return (
        (unit.unit.step or unit.unit.kind == "code")
        and unit.document_id == lead.document_id
        and unit.unit.section == lead.unit.section
        and _place(unit) < _place(lead)
    )


def compose(brief: EvidenceBrief) -> str:
    """Prose for an answerable brief, every sentence cited ("" when it is not answerable)."""
    lead = brief.lead
    if not brief.answerable or lead is None:
        return ""
    lines: list[str] = []
    siblings = brief.listed
    others = list(brief.support)
    lead_trust = trust(lead.source)
    status = lead.source.hit.canonical_status
    lines.extend(_dated(brief))
    # a procedure's earlier steps (and their commands) come before the step that leads
    earlier = [s for s in others if _before_in_procedure(s, lead)] if lead.unit.step else []
    others = [s for s in others if s not in earlier]
    lines.extend(_said(s) for s in sorted(earlier, key=lambda s: _place(s)))

    answer = {"yes": "Yes", "no": "No"}.get(brief.verdict, "")
    if brief.question.compares and not others:
        answer = ""  # a comparison is said with both of its values, or not at all
    opening = len(lines)
    if answer and brief.question.compares:
        # the measured value, then the target it is held against
        lines.append(_said(lead))
        lines.append(_said(others[0]))
        others = others[1:]
    elif lead_trust == TRUST_HISTORY and status in STALE_STATUSES:
        lines.extend(_history(brief, lead, str(status)))
    elif siblings or (brief.as_list and lead.unit.kind == "row"):
        lines.extend(_list_lines(lead, siblings, brief.question))
    elif forbids(lead.unit) and lead.unit.context not in lead.unit.text:
        # "3300 — Pitch emergency battery fault" says nothing without "Never remote reset"
        quoted = replace(
            lead, unit=replace(lead.unit, text=with_context(lead.unit.context, lead.unit.text))
        )
        lines.append(_said(quoted))
    else:
        lines.append(_said(lead))
    if answer and len(lines) > opening:
        lines[opening] = f"{answer}: {lines[opening]}"

    if (
        status in UNDECIDED_STATUSES
        and lead.source.hit.canonical_type
        and lead.unit.kind != STATUS  # the lead said its status already
    ):
        # a proposal answers, but the reader learns it is not (yet) the rule
        state = "a draft" if status == CanonicalStatus.DRAFT else "in review"
        lines.append(
            f"{lead.source.hit.title} is {state}, not an accepted record [{lead.source.n}]."
        )
        if brief.next_step is not None:
            lines.append(_said(brief.next_step))  # "is it in force yet?": when it is expected

    for extra in others[:2]:
        lines.append(_said(extra))

    for disagreement in brief.disagreements[:1]:
        other, trusted = disagreement.other, disagreement.trusted
        if disagreement.other_value:
            lines.append(
                f"{_describe(other.source)} says {disagreement.other_value} [{other.source.n}], "
                f"but {_describe(trusted.source)} says {disagreement.trusted_value} "
                f"[{trusted.source.n}]."
            )
        else:
            lines.append(
                f"{_describe(other.source)} says otherwise [{other.source.n}], but "
                f"{_describe(trusted.source)} is the record to follow [{trusted.source.n}]."
            )

    seen: set[int] = set()
    for source in brief.rejected:
        if source.hit.document_id in seen or len(seen) >= MAX_REJECTED_WARNINGS:
            continue
        seen.add(source.hit.document_id)
        lines.append(f"⚠ Note: {source.hit.title} was considered and rejected [{source.n}].")
    return " ".join(dict.fromkeys(lines))  # one unit reached by two routes is said once
