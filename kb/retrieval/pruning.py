"""Top-k pruning for the keyword arm (MaxScore over the postings), as pure decisions.

A chunk's keyword score is the sum over the query terms it holds of idf x weight. Each term
has an upper bound, its idf times the highest weight any of its postings has had
(`kb_termbound`, kept by the postings' triggers). Once k visible chunks are known to score at
least theta, a chunk whose terms' bounds sum below theta cannot reach the top k. So the
terms are split: the *pruned* ones (the non-selecting common terms first, then the selecting
terms with the smallest bounds, as long as their bounds sum below theta) and the *essential*
rest. Every chunk that can reach the top k holds an essential term; only the essential
terms' postings are read, and the pruned terms are probed for the chunks whose essential
part plus the pruned bounds can still reach theta (MaxScore, Turtle and Flood 1995, in the
set-at-a-time form SQL runs).

Scores are sums of integers (each term's contribution rounded to 1e-9 of a score point,
`SCORE_SCALE`), exact in a float8 whatever order PostgreSQL adds them in: the pruned and
the exhaustive statements give every chunk the same score, bit for bit, and the same ties
broken by chunk id, so they return the same top k (tests/kb/retrieval/test_pruning.py).

Off by default (KB_KEYWORD_PRUNING): on a million chunks of real English it read 5 % of the
postings of the queries it pruned and made their median 17 % faster, but probing the pruned
terms for every surviving chunk made the slowest searches 40 % slower, and the first round
is wasted on queries whose common words alone outweigh the threshold (benchmarks/RESULTS.md,
"Top-k pruning of the keyword arm").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# A term's contribution is round(idf * SCORE_SCALE * weight): integers far below 2**53 (an
# idf is at most ~15, a weight below 1, at most 64 terms), so a float8 sums them exactly.
SCORE_SCALE = 1e9
# Below this many postings to read, the exhaustive statement is already fast and the pruned
# path's extra round trip would cost more than it saves.
PRUNE_MIN_POSTINGS = 50_000
# The first round reads the rarest selecting terms' postings until about this many...
FIRST_ROUND_POSTINGS = 10_000
# ...and scores this many chunks per result exactly (a probe per term each): the k-th best
# of them is the threshold. More of them, a higher threshold, more terms pruned.
FIRST_ROUND_PER_RESULT = 4


def worth_pruning(frequencies: Mapping[str, int], read: Sequence[str]) -> bool:
    return sum(frequencies[lex] for lex in read) >= PRUNE_MIN_POSTINGS


def first_round_terms(selecting: Sequence[str], frequencies: Mapping[str, int]) -> list[str]:
    """The rarest selecting terms (the highest idf) whose postings together reach about
    FIRST_ROUND_POSTINGS; at least one."""
    chosen: list[str] = []
    read = 0
    for lexeme in sorted(selecting, key=lambda lex: (frequencies[lex], lex)):
        if chosen and read >= FIRST_ROUND_POSTINGS:
            break
        chosen.append(lexeme)
        read += frequencies[lexeme]
    return chosen


def split_terms(
    terms: Sequence[str],
    selecting: frozenset[str] | set[str],
    bounds: Mapping[str, float | None],
    theta: float,
) -> tuple[list[str], list[str], float] | None:
    """(essential, pruned, sum of the pruned terms' bounds) for threshold theta, or None
    when no selecting term can be pruned (the exhaustive statement is as good).

    `bounds` are the terms' contributions' upper bounds in score units (None: unknown, the
    term stays essential). Non-selecting terms are always pruned: they never make a chunk a
    candidate on their own, so their postings are only ever needed for probing. Selecting
    terms join them, smallest bound first, while the pruned bounds sum below theta: a chunk
    holding only pruned terms then scores below theta.
    """
    pruned = [lex for lex in terms if lex not in selecting]
    if any(bounds.get(lex) is None for lex in pruned):
        return None
    total = sum(bounds[lex] or 0.0 for lex in pruned)
    if total >= theta:
        return None
    known = [lex for lex in terms if lex in selecting and bounds.get(lex) is not None]
    pruned_selecting = 0
    for lexeme in sorted(known, key=lambda lex: (bounds[lex], lex)):
        bound = bounds[lexeme] or 0.0
        if total + bound >= theta:
            break
        pruned.append(lexeme)
        total += bound
        pruned_selecting += 1
    essential = [lex for lex in terms if lex not in pruned]
    if not pruned_selecting or not essential:
        return None
    return essential, pruned, total
