"""The keyword arm's postings (kb_chunkterm): their health, and repairing them.

Migration kb 0005 creates the table, its triggers on kb_chunk and the kb_lexeme_query SQL
function; the triggers keep the postings in step with the chunks' tsvectors. A write made
with the triggers off (ALTER TABLE ... DISABLE TRIGGER, session_replication_role = replica,
a restore that skipped them) leaves them behind; `postings_state` finds that and
`postings_repair` mends it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection, transaction

from kb.models import Chunk, ChunkTerm, TermBound

TRIGGERS = (
    "kb_chunkterm_insert",
    "kb_chunkterm_update",
    "kb_chunkterm_delete",
    "kb_chunkterm_truncate",
)
# One posting of every lexeme of every chunk's tsvector, with the weight the triggers store:
# ts_rank of that one lexeme, length-normalised (normalisation 1). The same expression as
# the triggers of kb 0005: a migration that changes theirs changes this one.
_EXPECTED = """
    SELECT r.id AS chunk_id, r.document_id,
           ts_rank(r.search_vector, kb_lexeme_query(u.lexeme), 1) AS weight, u.lexeme
    FROM {chunk} r CROSS JOIN LATERAL unnest(r.search_vector) u
"""


# Lexemes whose stored bound (kb_termbound) is missing or below their postings' highest
# weight, with that weight. A bound above it is fine: the triggers never lower one.
_LOW_BOUNDS = f"""
    SELECT m.lexeme, m.weight FROM (
        SELECT lexeme, max(weight) AS weight FROM {ChunkTerm._meta.db_table} GROUP BY lexeme
    ) m
    LEFT JOIN {TermBound._meta.db_table} b ON b.lexeme = m.lexeme
    WHERE b.max_weight IS NULL OR b.max_weight < m.weight
"""


def _missing_problem(names: tuple[str, ...]) -> str:
    return (
        f"triggers missing on kb_chunk: {', '.join(names)}; re-create them by migrating the "
        "tenant's kb app back to 0004 and forward again"
    )


class PostingsError(Exception):
    """The postings cannot be repaired here (their triggers are gone)."""


@dataclass(frozen=True)
class PostingsState:
    stored: int
    expected: int  # lexemes over every chunk's tsvector
    low_bounds: int  # lexemes whose kb_termbound bound is below one of their postings' weights
    missing_triggers: tuple[str, ...]
    disabled_triggers: tuple[str, ...]

    @property
    def problems(self) -> list[str]:
        out = []
        if self.missing_triggers:
            out.append(_missing_problem(self.missing_triggers))
        if self.disabled_triggers:
            out.append(
                f"triggers disabled on kb_chunk: {', '.join(self.disabled_triggers)} "
                "(kb_postings_repair enables them)"
            )
        if self.low_bounds:
            out.append(
                f"{self.low_bounds} terms have an upper bound below one of their postings' "
                "weights: pruned keyword searches can miss chunks until kb_postings_repair runs"
            )
        if self.stored != self.expected:
            out.append(
                f"the keyword postings are out of step with the chunks: {self.stored} stored, "
                f"{self.expected} expected; keyword search misses or misranks chunks until "
                "kb_postings_repair runs"
            )
        return out


def _trigger_states(cursor) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(missing, disabled) among the postings' triggers on kb_chunk."""
    cursor.execute(
        "SELECT tgname, tgenabled <> 'D' FROM pg_trigger WHERE tgrelid = %s::regclass "
        "AND tgname = ANY(%s)",
        [Chunk._meta.db_table, list(TRIGGERS)],
    )
    enabled = dict(cursor.fetchall())
    return (
        tuple(name for name in TRIGGERS if name not in enabled),
        tuple(name for name in TRIGGERS if enabled.get(name) is False),
    )


def postings_state() -> PostingsState:
    """Counts and triggers of the current tenant's postings (reads every chunk's tsvector)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT count(*) FROM {ChunkTerm._meta.db_table}), "
            f"(SELECT coalesce(sum(length(search_vector)), 0) FROM {Chunk._meta.db_table})"
        )
        stored, expected = cursor.fetchone()
        cursor.execute(f"SELECT count(*) FROM ({_LOW_BOUNDS}) low")
        (low_bounds,) = cursor.fetchone()
        missing, disabled = _trigger_states(cursor)
    return PostingsState(
        stored=stored,
        expected=int(expected),
        low_bounds=low_bounds,
        missing_triggers=missing,
        disabled_triggers=disabled,
    )


@dataclass(frozen=True)
class PostingsRepair:
    removed: int
    added: int
    raised_bounds: int
    enabled_triggers: tuple[str, ...]


def postings_repair() -> PostingsRepair:
    """Enable the postings' triggers and bring the current tenant's postings in step with
    the chunks: stale or wrong postings removed, missing ones added, in one transaction.

    Writes to the chunks wait until it commits (they would change what it compares);
    searches go on, on the old postings until then. Only what differs is written.
    """
    chunk, term = Chunk._meta.db_table, ChunkTerm._meta.db_table
    expected = _EXPECTED.format(chunk=chunk)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"LOCK TABLE {chunk} IN SHARE ROW EXCLUSIVE MODE")
        missing, disabled = _trigger_states(cursor)
        if missing:
            raise PostingsError(_missing_problem(missing))
        for name in disabled:
            cursor.execute(f"ALTER TABLE {chunk} ENABLE TRIGGER {name}")
        cursor.execute(
            f"""
            DELETE FROM {term} t WHERE NOT EXISTS (
                SELECT 1 FROM ({expected}) e
                WHERE e.lexeme = t.lexeme AND e.chunk_id = t.chunk_id
                  AND e.document_id = t.document_id AND e.weight = t.weight
            )
            """
        )
        removed = cursor.rowcount
        cursor.execute(
            f"""
            INSERT INTO {term} (chunk_id, document_id, weight, lexeme)
            SELECT e.chunk_id, e.document_id, e.weight, e.lexeme FROM ({expected}) e
            WHERE NOT EXISTS (
                SELECT 1 FROM {term} t WHERE t.lexeme = e.lexeme AND t.chunk_id = e.chunk_id
            )
            """
        )
        added = cursor.rowcount
        cursor.execute(
            f"""
            INSERT INTO {TermBound._meta.db_table} AS b (lexeme, max_weight)
            SELECT lexeme, weight FROM ({_LOW_BOUNDS}) low
            ON CONFLICT (lexeme) DO UPDATE SET max_weight = excluded.max_weight
            """
        )
        raised = cursor.rowcount
    return PostingsRepair(
        removed=removed, added=added, raised_bounds=raised, enabled_triggers=disabled
    )
