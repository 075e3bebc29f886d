"""Consistency checks for the Riverside Health gold set.

    .venv/bin/python benchmarks/answers/riverside/check_gold.py

Checks: every line is valid JSON with the expected keys and a known kind; gold.jsonl is
DEV.jsonl + HELDOUT.jsonl; conversations are contiguous and inside one split; every
Markdown document has valid frontmatter (or none), a slug equal to its file stem, links to
existing slugs and 250-1200 words; every slug in the gold set exists (frontmatter slug or
file stem); every fact has at least one phrasing that occurs, case-insensitively on word
boundaries, in the text of one of the question's gold documents (PDF/Word text both
extracted from the file and taken from build_binaries.py); stale values are never also fact
phrasings and each stale list names a value that some document really states; refusals
carry no facts or slugs, and the subject of each refusal is absent from the whole corpus.

Refusal subjects are stored below only as SHA-256 hashes of normalised phrases (keyed by a
hash of the question), so reading this script does not reveal held-out questions. A probe
phrase is "present" if its normalised word sequence occurs anywhere in the corpus.

Prints counts per kind and split, never question text. Exit status 1 on any error.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import sys
from collections import Counter
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
KINDS = {
    "paraphrase",
    "list",
    "stale",
    "history",
    "follow-up",
    "multi-hop",
    "who-when",
    "notes-vs-record",
    "word-table",
    "pdf-table",
    "yes-no",
    "near-miss",
    "off-topic",
    "howto",
    "number",
}
CANONICAL_TYPES = {
    "project-index",
    "module-kb",
    "decision",
    "runbook",
    "standard",
    "incident",
    "integration",
    "domain-concept",
    "rejected-approach",
}
CANONICAL_STATUSES = {"draft", "review", "accepted", "superseded", "deprecated", "archived"}
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
ALLOWED_KEYS = {"q", "facts", "slugs", "refuse", "kind", "conversation", "stale"}
MAX_PROBE_WORDS = 6


def stem_slug(path: Path) -> str:
    return re.sub(r"[\s_]+", "-", path.stem.lower())


def split_frontmatter(text: str) -> tuple[dict | None, str]:
    if not text.startswith("---\n"):
        return None, text
    end = re.search(r"^---[ \t]*$", text[4:], re.MULTILINE)
    if not end:
        return None, text
    return yaml.safe_load(text[4 : 4 + end.start()]), text[4 + end.end() :]


def pdf_text(path: Path) -> str:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return "\n".join(page.extract_text() or "" for page in pdf.pages)


def docx_text(path: Path) -> str:
    import docx

    document = docx.Document(path)
    parts = [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            parts.append(" | ".join(cell.text for cell in row.cells))
    return "\n".join(parts)


def load_corpus(errors: list[str]) -> dict[str, str]:
    sys.path.insert(0, str(HERE))
    from build_binaries import source_texts

    sources = source_texts()
    corpus: dict[str, str] = {}
    links: list[tuple[str, str]] = []
    for path in sorted(DOCS.iterdir()):
        suffix = path.suffix.lower()
        if suffix in {".md", ".txt", ".html"}:
            raw = path.read_text(encoding="utf-8")
            meta, body = split_frontmatter(raw) if suffix == ".md" else (None, raw)
            if suffix == ".html":
                body = html.unescape(re.sub(r"<[^>]+>", " ", body))
            if meta:
                slug = str(meta.get("slug", ""))
                if (
                    meta.get("type") not in CANONICAL_TYPES
                    or meta.get("status") not in CANONICAL_STATUSES
                ):
                    errors.append(
                        f"{path.name}: bad type/status {meta.get('type')}/{meta.get('status')}"
                    )
                if not SLUG_RE.match(slug) or slug != stem_slug(path):
                    errors.append(f"{path.name}: slug {slug!r} is not the lower-case file stem")
                for key in ("related", "supersedes", "superseded_by"):
                    for target in meta.get(key) or []:
                        links.append((path.name, str(target)))
                text = body + "\n" + str(meta.get("summary", ""))
            else:
                slug, text = stem_slug(path), body
                if not SLUG_RE.match(slug):
                    errors.append(f"{path.name}: file name is not lower-case-hyphenated")
            for target in re.findall(r"\[\[([^\[\]|#\n]+)", body):
                links.append((path.name, target.strip()))
            words = len(re.findall(r"\w+", text))
            if suffix == ".md" and not 250 <= words <= 1200:
                errors.append(f"{path.name}: {words} words (want 250-1200)")
        elif suffix == ".pdf":
            slug = stem_slug(path)
            text = pdf_text(path) + "\n" + sources.get(slug, "")
        elif suffix == ".docx":
            slug = stem_slug(path)
            text = docx_text(path) + "\n" + sources.get(slug, "")
        else:
            continue
        if slug in corpus:
            errors.append(f"duplicate slug {slug}")
        corpus[slug] = text
    for source, target in links:
        if target not in corpus:
            errors.append(f"{source}: link to unknown slug {target}")
    return corpus


def occurs(phrase: str, text: str) -> bool:
    return re.search(r"\b" + re.escape(phrase) + r"\b", text, re.IGNORECASE) is not None


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def corpus_ngram_hashes(corpus: dict[str, str]) -> set[str]:
    hashes: set[str] = set()
    for text in corpus.values():
        tokens = words(text)
        for n in range(1, MAX_PROBE_WORDS + 1):
            for i in range(len(tokens) - n + 1):
                hashes.add(digest(" ".join(tokens[i : i + n])))
    return hashes


def main() -> int:
    errors: list[str] = []
    warnings: list[str] = []
    corpus = load_corpus(errors)
    all_text = "\n".join(corpus.values())
    ngrams = corpus_ngram_hashes(corpus)
    splits: dict[str, list[dict]] = {}
    for name in ("DEV", "HELDOUT", "gold"):
        rows = []
        for n, line in enumerate((HERE / f"{name}.jsonl").read_text().splitlines(), 1):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                errors.append(f"{name}:{n}: invalid JSON ({exc})")
        splits[name] = rows
    if splits["gold"] != splits["DEV"] + splits["HELDOUT"]:
        errors.append("gold.jsonl is not DEV.jsonl + HELDOUT.jsonl")

    conv_split: dict[str, str] = {}
    probes_used: set[str] = set()
    for name in ("DEV", "HELDOUT"):
        seen_done: set[str] = set()
        previous = None
        for n, row in enumerate(splits[name], 1):
            where = f"{name}:{n}"
            for key in ("q", "facts", "slugs", "refuse", "kind"):
                if key not in row:
                    errors.append(f"{where}: missing {key}")
            if set(row) - ALLOWED_KEYS:
                errors.append(f"{where}: unexpected keys {sorted(set(row) - ALLOWED_KEYS)}")
            if row.get("kind") not in KINDS:
                errors.append(f"{where}: unknown kind {row.get('kind')}")
            conv = row.get("conversation")
            if previous and previous != conv:
                seen_done.add(previous)
            if conv:
                if conv in seen_done:
                    errors.append(f"{where}: conversation {conv} is not contiguous")
                if conv_split.setdefault(conv, name) != name:
                    errors.append(f"{where}: conversation {conv} spans splits")
            previous = conv
            if row.get("refuse"):
                if row.get("facts") or row.get("slugs"):
                    errors.append(f"{where}: refusal with facts or slugs")
                key = digest(str(row.get("q", "")))
                probe_hashes = REFUSAL_PROBES.get(key)
                if not probe_hashes:
                    errors.append(f"{where}: refusal without subject probes in check_gold.py")
                else:
                    probes_used.add(key)
                    found = sum(p in ngrams for p in probe_hashes)
                    if found:
                        errors.append(
                            f"{where}: {found} refusal subject probe(s) occur in the corpus"
                        )
                continue
            if not row.get("facts") or not row.get("slugs"):
                errors.append(f"{where}: answerable question without facts or slugs")
            for slug in row.get("slugs", []):
                if slug not in corpus:
                    errors.append(f"{where}: unknown slug {slug}")
            gold_text = "\n".join(corpus.get(s, "") for s in row.get("slugs", []))
            phrasings = set()
            for fact in row.get("facts", []):
                if not isinstance(fact, list) or not fact:
                    errors.append(f"{where}: fact must be a non-empty list")
                    continue
                phrasings.update(p.lower() for p in fact)
                if not any(occurs(p, gold_text) for p in fact):
                    errors.append(
                        f"{where}: no phrasing of fact {fact} occurs in {row.get('slugs')}"
                    )
                for p in fact:
                    if not (p[0].isalnum() and p[-1].isalnum()):
                        warnings.append(
                            f"{where}: phrasing {p!r} does not start/end with a word character"
                        )
            stale = row.get("stale", [])
            for value in stale:
                if value.lower() in phrasings:
                    errors.append(f"{where}: stale value {value!r} is also a fact phrasing")
            if stale and not any(occurs(v, all_text) for v in stale):
                errors.append(f"{where}: no stale value occurs anywhere in the corpus")
    unused = set(REFUSAL_PROBES) - probes_used
    if unused:
        warnings.append(f"{len(unused)} probe set(s) in check_gold.py match no refusal question")

    table: dict[str, Counter] = {
        name: Counter(r.get("kind") for r in splits[name]) for name in ("DEV", "HELDOUT")
    }
    print(f"{'kind':<16}{'DEV':>5}{'HELDOUT':>9}{'total':>7}")
    for kind in sorted(KINDS):
        d, h = table["DEV"][kind], table["HELDOUT"][kind]
        print(f"{kind:<16}{d:>5}{h:>9}{d + h:>7}")
        if d == 0 or h == 0:
            errors.append(f"kind {kind} missing from a split")
    print(
        f"{'total':<16}{len(splits['DEV']):>5}{len(splits['HELDOUT']):>9}{len(splits['gold']):>7}"
    )
    refusals = {n: sum(bool(r.get("refuse")) for r in splits[n]) for n in ("DEV", "HELDOUT")}
    print(f"refusals: DEV {refusals['DEV']}, HELDOUT {refusals['HELDOUT']}")
    per_split = Counter(conv_split.values())
    print(
        f"documents: {len(corpus)}; conversations: DEV {per_split['DEV']}, "
        f"HELDOUT {per_split['HELDOUT']}"
    )
    for w in warnings:
        print("warning:", w)
    for e in errors:
        print("ERROR:", e)
    print("OK" if not errors else f"{len(errors)} error(s)")
    return 1 if errors else 0


# Hash of the question text -> hashes of normalised phrases naming the refused subject.
# Regenerate by hashing new phrases with words()/digest() above.
REFUSAL_PROBES = {
    "cd2ac63ab774d0da": [
        "53738e5140475e25",
        "933aa6ebb83e4538",
        "d39245fa8f8a21c2",
        "fd29c83362a75462",
    ],
    "b6441b675d841bc7": ["00651121c5a6ad69", "f1e67411f40b7086"],
    "11ed69978143e12b": ["0e0103a791486529"],
    "f580ac12ff32763c": ["4d1b464c3b5feb12", "f56c68f42cb42511"],
    "d47c1d5aea2fff4f": ["14e22ef994695c5c", "76d9a5d8536f690e", "cb38b1c159af4c47"],
    "0184acc985ab5c96": ["2422eef7509457a9", "49fb13fd06e9b706", "6be908dd5f7bba92"],
    "ff83d8542c0f9c81": ["05c7dbac14dc2bf3"],
    "01cd2e5cfae7316f": ["9041bd65105f2c76"],
    "5a8a0d3a5c153206": ["b493d48364afe44d"],
    "a21ecb3d15a560b0": ["bf0bddc8bea5c541"],
    "502a0fb6a8638f96": ["41d84697de766b1f", "8b6e2bef057f10e4", "aebfce0e2bc9ef92"],
    "9d8b391470ac4416": ["0e376c13c26b9a46", "b5e224678b68106d"],
    "4ffb87416e8af721": ["2caf4ade6c75d688", "69817c5201ce4fe5", "9afc3d41416f8c81"],
    "952fdea77576e402": [
        "1f138a9db68c91dc",
        "3e927e178863c315",
        "e43dc73032cdd33e",
        "f45de5b52edb5ed3",
    ],
    "61f48c296cca0009": ["21b73bd58fd98b57"],
    "0fa2128f7ee93d69": ["c74c9a30f434ce29", "d1022618b99a974b"],
    "a70c333e69cb2df8": ["891eb3cfc2cddd9e"],
    "63a041bbb7486e3e": ["b29dbba57df61de7"],
    "59178fc26057f292": ["33c594e4e3652984", "408c7c5887a0f390"],
    "e9f1271fe636bed8": ["3b68ec8b0f958bd2", "74f5bd52367feed1"],
}


if __name__ == "__main__":
    sys.exit(main())
