"""Consistency checks for the Windward Energy gold set.

    .venv/bin/python benchmarks/answers/windward/check_gold.py

Checks: every line is valid JSON with the expected keys and a known kind; gold.jsonl is
DEV.jsonl + HELDOUT.jsonl; conversations are contiguous and inside one split; every slug
exists (frontmatter slug or file stem); every fact has at least one phrasing that occurs,
case-insensitively on word boundaries, in the text of one of the question's gold documents
(PDF/Word text both extracted from the file and taken from build_binaries.py); refusals
carry no facts or slugs; stale values are never also fact phrasings. Prints counts per kind
and split, never question text. Exit status 1 on any error.
"""

from __future__ import annotations

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
                if not SLUG_RE.match(slug):
                    errors.append(f"{path.name}: bad slug {slug!r}")
                for key in ("related", "supersedes", "superseded_by"):
                    for target in meta.get(key) or []:
                        corpus.setdefault(f"__link__{path.name}__{target}", "")
                text = body + "\n" + str(meta.get("summary", ""))
            else:
                slug, text = stem_slug(path), body
            for target in re.findall(r"\[\[([^\[\]|#\n]+)", body):
                corpus.setdefault(f"__link__{path.name}__{target.strip()}", "")
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
    # links in frontmatter must point at existing slugs
    for key in [k for k in corpus if k.startswith("__link__")]:
        del corpus[key]
        target = key.rsplit("__", 1)[1]
        if target not in corpus and not (DOCS / f"{target}.md").exists():
            errors.append(f"frontmatter link to unknown slug {target} ({key.split('__')[2]})")
    return corpus


def occurs(phrase: str, text: str) -> bool:
    return re.search(r"\b" + re.escape(phrase) + r"\b", text, re.IGNORECASE) is not None


def main() -> int:
    errors: list[str] = []
    warnings: list[str] = []
    corpus = load_corpus(errors)
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
    for name in ("DEV", "HELDOUT"):
        seen_done: set[str] = set()
        previous = None
        for n, row in enumerate(splits[name], 1):
            where = f"{name}:{n}"
            for key in ("q", "facts", "slugs", "refuse", "kind"):
                if key not in row:
                    errors.append(f"{where}: missing {key}")
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
            for value in row.get("stale", []):
                if value.lower() in phrasings:
                    errors.append(f"{where}: stale value {value!r} is also a fact phrasing")

    table: dict[str, Counter] = {
        name: Counter(r.get("kind") for r in splits[name]) for name in ("DEV", "HELDOUT")
    }
    print(f"{'kind':<16}{'DEV':>5}{'HELDOUT':>9}{'total':>7}")
    for kind in sorted(KINDS):
        d, h = table["DEV"][kind], table["HELDOUT"][kind]
        print(f"{kind:<16}{d:>5}{h:>9}{d + h:>7}")
        if kind != "off-topic" and (d == 0 or h == 0):
            errors.append(f"kind {kind} missing from a split")
    print(
        f"{'total':<16}{len(splits['DEV']):>5}{len(splits['HELDOUT']):>9}{len(splits['gold']):>7}"
    )
    print(f"documents: {len(corpus)}; conversations: {len(conv_split)}")
    for w in warnings:
        print("warning:", w)
    for e in errors:
        print("ERROR:", e)
    print("OK" if not errors else f"{len(errors)} error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
