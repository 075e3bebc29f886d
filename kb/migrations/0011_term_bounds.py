"""Per-term upper bounds for the keyword arm's top-k pruning: kb_termbound.

One row per lexeme with the highest weight any of its postings has had. The keyword arm uses
them for MaxScore pruning (kb/retrieval/pruning.py): a chunk that holds only terms whose
bounds sum below the k-th best score already found cannot reach the top k, so those terms'
postings are only probed for the chunks that can. The triggers of kb 0005 that write the
postings now raise the bounds in the same statement; nothing lowers them (a deleted chunk
leaves its term's bound as it was: too high only prunes less). Only lexemes whose bound
rises are written, so concurrent ingests do not queue on the rows of common words.
Existing postings are backfilled (77M postings of a million chunks: about a minute).
"""

import importlib

from django.db import migrations, models

import kb.models

_0005 = importlib.import_module("kb.migrations.0005_chunk_terms")

# %1$I: the schema of the chunk table the trigger fired on. `added`: the postings just
# written (lexeme, weight). Sorted by lexeme so that two writers lock rows in one order.
RAISE_BOUNDS = """
    INSERT INTO %1$I.kb_termbound AS b (lexeme, max_weight)
    SELECT a.lexeme, max(a.weight) FROM added a
    GROUP BY a.lexeme
    HAVING max(a.weight) > coalesce(
        (SELECT x.max_weight FROM %1$I.kb_termbound x WHERE x.lexeme = a.lexeme), -1)
    ORDER BY a.lexeme
    ON CONFLICT (lexeme) DO UPDATE SET max_weight = excluded.max_weight
    WHERE b.max_weight < excluded.max_weight
"""

# The updated rows whose tsvector or document changed (their postings were just deleted).
CHANGED = """
    JOIN old_rows o ON o.id = r.id
    WHERE (r.search_vector, r.document_id) IS DISTINCT FROM (o.search_vector, o.document_id)
"""


def _add_postings(rows: str, where: str = "") -> str:
    """Insert the postings of `rows` (with `where`) and raise the bounds they exceed."""
    return f"""
        WITH added AS (
            INSERT INTO %1$I.kb_chunkterm (chunk_id, document_id, weight, lexeme)
            {_0005.POSTINGS_OF.format(rows=rows)}
            {where}
            RETURNING lexeme, weight
        )
        {RAISE_BOUNDS}
    """


FUNCTIONS = f"""
CREATE OR REPLACE FUNCTION kb_chunkterm_on_insert() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
    EXECUTE format($sql$ {_add_postings("new_rows")} $sql$, TG_TABLE_SCHEMA);
    RETURN NULL;
END
$body$;

CREATE OR REPLACE FUNCTION kb_chunkterm_on_update() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
    EXECUTE format($sql$
        DELETE FROM %1$I.kb_chunkterm t
        USING old_rows o JOIN new_rows n ON n.id = o.id, unnest(o.search_vector) u
        WHERE (n.search_vector, n.document_id) IS DISTINCT FROM (o.search_vector, o.document_id)
          AND t.lexeme = u.lexeme AND t.chunk_id = o.id
    $sql$, TG_TABLE_SCHEMA);
    EXECUTE format($sql$ {_add_postings("new_rows", CHANGED)} $sql$, TG_TABLE_SCHEMA);
    RETURN NULL;
END
$body$;

CREATE OR REPLACE FUNCTION kb_chunkterm_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
    EXECUTE format('TRUNCATE %1$I.kb_chunkterm, %1$I.kb_termbound', TG_TABLE_SCHEMA);
    RETURN NULL;
END
$body$;
"""

# What kb 0005 defined, for going back.
PREVIOUS_FUNCTIONS = _0005.FUNCTIONS.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION")

BACKFILL = """
INSERT INTO kb_termbound (lexeme, max_weight)
SELECT lexeme, max(weight) FROM kb_chunkterm GROUP BY lexeme;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("kb", "0010_documentversion_superseded_by"),
    ]

    operations = [
        migrations.CreateModel(
            name="TermBound",
            fields=[
                ("lexeme", models.TextField(primary_key=True, serialize=False)),
                ("max_weight", kb.models.RealField()),
            ],
        ),
        migrations.RunSQL(FUNCTIONS + BACKFILL, reverse_sql=PREVIOUS_FUNCTIONS),
    ]
