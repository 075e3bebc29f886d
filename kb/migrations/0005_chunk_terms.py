"""The keyword arm's postings: one kb_chunkterm row per (lexeme, chunk) with its weight.

The keyword arm used to visit every chunk row that contains a query term (one heap page per
match) to rank its tsvector: about 2 us a match, the larger part of a keyword search at 100k
chunks. The weight of a single term, ts_rank(search_vector, term, 1), depends on nothing but
the chunk, so it is computed once here, when search_vector is written, and the arm reads a
term's postings from the primary key alone: (lexeme, chunk_id) INCLUDE (document_id,
weight), an index-only scan.

Triggers on kb_chunk keep the table in step with search_vector inside the statement that
changes it: inserted rows add their postings, a changed search_vector (or document) replaces
them, deleted rows remove theirs (by lexeme and chunk id, so every removal is an index probe),
TRUNCATE empties it (kb.postings checks and repairs them). They are statement-level with transition tables, one INSERT or DELETE
per statement whatever its size, and name the table through TG_TABLE_SCHEMA, so a write to a
tenant's chunks reaches that tenant's postings whatever the search_path. Existing chunks are
backfilled (3.2M postings of 100k chunks in about 10 s). A posting takes about 110 bytes
on disk with its key: SciFact's 16k chunks have 0.87M postings, 93 MB, as much as their
chunk table (benchmarks/RESULTS.md, "The keyword arm's postings").
"""

import kb.models
from django.db import migrations, models

# A lexeme as a tsquery of that one lexeme, quoted: backslashes and quotes escaped, as the
# keyword arm quotes query lexemes. IMMUTABLE so it is inlined into the triggers' statements.
LEXEME_QUERY = r"""
CREATE FUNCTION kb_lexeme_query(lexeme text) RETURNS tsquery
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN ('''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''')::tsquery;
"""

# %1$I: the schema of the chunk table the trigger fired on.
POSTINGS_OF = """
    SELECT r.id, r.document_id,
           ts_rank(r.search_vector, %1$I.kb_lexeme_query(u.lexeme), 1), u.lexeme
    FROM {rows} r CROSS JOIN LATERAL unnest(r.search_vector) u
"""

FUNCTIONS = f"""
CREATE FUNCTION kb_chunkterm_on_insert() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
    EXECUTE format($sql$
        INSERT INTO %1$I.kb_chunkterm (chunk_id, document_id, weight, lexeme)
        {POSTINGS_OF.format(rows="new_rows")}
    $sql$, TG_TABLE_SCHEMA);
    RETURN NULL;
END
$body$;

CREATE FUNCTION kb_chunkterm_on_update() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
    EXECUTE format($sql$
        DELETE FROM %1$I.kb_chunkterm t
        USING old_rows o JOIN new_rows n ON n.id = o.id, unnest(o.search_vector) u
        WHERE (n.search_vector, n.document_id) IS DISTINCT FROM (o.search_vector, o.document_id)
          AND t.lexeme = u.lexeme AND t.chunk_id = o.id
    $sql$, TG_TABLE_SCHEMA);
    EXECUTE format($sql$
        INSERT INTO %1$I.kb_chunkterm (chunk_id, document_id, weight, lexeme)
        {POSTINGS_OF.format(rows="new_rows")}
        JOIN old_rows o ON o.id = r.id
        WHERE (r.search_vector, r.document_id) IS DISTINCT FROM (o.search_vector, o.document_id)
    $sql$, TG_TABLE_SCHEMA);
    RETURN NULL;
END
$body$;

CREATE FUNCTION kb_chunkterm_on_delete() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
    EXECUTE format($sql$
        DELETE FROM %1$I.kb_chunkterm t USING old_rows o, unnest(o.search_vector) u
        WHERE t.lexeme = u.lexeme AND t.chunk_id = o.id
    $sql$, TG_TABLE_SCHEMA);
    RETURN NULL;
END
$body$;

CREATE FUNCTION kb_chunkterm_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
    EXECUTE format('TRUNCATE %1$I.kb_chunkterm', TG_TABLE_SCHEMA);
    RETURN NULL;
END
$body$;
"""

TRIGGERS = """
CREATE TRIGGER kb_chunkterm_insert AFTER INSERT ON kb_chunk
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION kb_chunkterm_on_insert();
CREATE TRIGGER kb_chunkterm_update AFTER UPDATE ON kb_chunk
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION kb_chunkterm_on_update();
CREATE TRIGGER kb_chunkterm_delete AFTER DELETE ON kb_chunk
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
    EXECUTE FUNCTION kb_chunkterm_on_delete();
CREATE TRIGGER kb_chunkterm_truncate AFTER TRUNCATE ON kb_chunk
    FOR EACH STATEMENT EXECUTE FUNCTION kb_chunkterm_on_truncate();
"""

# The primary key carries the document and the weight, so a term's postings are read from
# the index alone (Django declares a composite key without INCLUDE columns). It is built
# after the backfill: one sorted build instead of an index insert per posting.
DROP_KEY = "ALTER TABLE kb_chunkterm DROP CONSTRAINT kb_chunkterm_pkey;"
COVERING_KEY = """
ALTER TABLE kb_chunkterm
    ADD CONSTRAINT kb_chunkterm_pkey PRIMARY KEY (lexeme, chunk_id) INCLUDE (document_id, weight);
"""

BACKFILL = """
INSERT INTO kb_chunkterm (chunk_id, document_id, weight, lexeme)
SELECT r.id, r.document_id, ts_rank(r.search_vector, kb_lexeme_query(u.lexeme), 1), u.lexeme
FROM kb_chunk r, unnest(r.search_vector) u;
"""

DROP = """
DROP TRIGGER kb_chunkterm_insert ON kb_chunk;
DROP TRIGGER kb_chunkterm_update ON kb_chunk;
DROP TRIGGER kb_chunkterm_delete ON kb_chunk;
DROP TRIGGER kb_chunkterm_truncate ON kb_chunk;
DROP FUNCTION kb_chunkterm_on_insert();
DROP FUNCTION kb_chunkterm_on_update();
DROP FUNCTION kb_chunkterm_on_delete();
DROP FUNCTION kb_chunkterm_on_truncate();
DROP FUNCTION kb_lexeme_query(text);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("kb", "0004_hnsw_ef_construction_200"),
    ]

    operations = [
        migrations.CreateModel(
            name="ChunkTerm",
            fields=[
                (
                    "pk",
                    models.CompositePrimaryKey(
                        "lexeme",
                        "chunk_id",
                        blank=True,
                        editable=False,
                        primary_key=True,
                        serialize=False,
                    ),
                ),
                ("chunk_id", models.BigIntegerField()),
                ("document_id", models.BigIntegerField()),
                ("weight", kb.models.RealField()),
                ("lexeme", models.TextField()),
            ],
        ),
        migrations.RunSQL(DROP_KEY, reverse_sql=migrations.RunSQL.noop),
        migrations.RunSQL(LEXEME_QUERY + FUNCTIONS + TRIGGERS + BACKFILL, reverse_sql=DROP),
        migrations.RunSQL(COVERING_KEY, reverse_sql=migrations.RunSQL.noop),
    ]
