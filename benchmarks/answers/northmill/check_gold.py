"""Consistency checks for the Northmill Foods gold set.

    .venv/bin/python benchmarks/answers/northmill/check_gold.py
    .venv/bin/python benchmarks/answers/northmill/check_gold.py --digest "QUESTION" "PHRASE" ["slug|PHRASE" ...]

Checks: every line is valid JSON with the expected keys and a known kind; gold.jsonl is
DEV.jsonl + HELDOUT.jsonl; no question is repeated; conversations are contiguous and inside one
split; every slug exists (frontmatter slug or file stem) and every [[wikilink]] or frontmatter
link resolves; every Markdown document is 250-1200 words and carries valid frontmatter or none;
each fact has at least one phrasing that occurs, case-insensitively on word boundaries, in the
text of one of the question's gold documents (PDF/Word text both extracted from the file and
taken from build_binaries.py); no phrasing is a bare common word; notes-vs-record questions
carry stale values and no stale value is also a fact phrasing; refusals carry no facts or slugs.

Refusal subjects: every refusal (near-miss, off-topic) has probe phrases that must NOT occur in
the corpus - either anywhere ("phrase") or in one document ("slug|phrase"). Probes are stored
as SHA-256 digests keyed by a digest of the question, so this file does not reveal held-out
questions. `--digest` prints the entry to paste into REFUSAL_PROBES for a new refusal.

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
REFUSAL_KINDS = {"near-miss", "off-topic"}
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
# A fact phrasing must never be one of these on its own: it would match almost any answer.
COMMON = set(
    "a an the and or of in on at to for by is are was were it yes no not none all one two new old "
    "first last line lines time check food milk egg fish paper never always day days hours week "
    "site team product".split()
)
MAX_PROBE_WORDS = 5

# sha256(question)[:12] -> sha256(normalised probe)[:16] for each probe; see --digest.
REFUSAL_PROBES: dict[str, list[str]] = {
    "73f3f64defed": ["68af4c61b30a8784", "0ee92431a403898c"],
    "1e08d2b0b712": ["71dd38c7bb48bbcf", "b571d05fbe6204ff"],
    "b056b5edae18": ["a8261362734772b3", "134dd443c2037e78"],
    "f5d5b5b73a92": ["86665ca8e08899ac", "3ca7c696b8980eb6", "4e0376e167c39842"],
    "301b09566030": [
        "ee4c8e674d78a6e1",
        "3bc741d603906461",
        "78f3879ebac199b0",
        "fbdbe8fb80aa6782",
    ],
    "f746056f0fa6": [
        "736321bf1dd7b5e2",
        "8c250a53ddf134d9",
        "b7b96ac2ad1d52be",
        "4507c5ee938f7372",
    ],
    "b953d5d94f8b": ["70e9f44ea20ad5c9", "b72dbd892ddc1df8", "82a1b5ebcea433e5"],
    "02ee88d31958": ["66a81636f4b16cdb", "1376575ab0699527", "2c98998a7b1a7ae1"],
    "0fcaaf50e258": ["7111fedc716fa068", "34461b48e194298f"],
    "9401e0eb3f7b": ["338ecbda90a2a694", "a3b0eb8b90d00d65"],
    "3b4fd93974ce": ["dbf3ac43357a325c", "6d8d7a64a2d8291d"],
    "d087b882c181": [
        "27d249c661ac09eb",
        "5c29e81d4479dd86",
        "b797322f2e0c5e24",
        "8861fe7fec9f55a5",
    ],
    "28184e4cab37": [
        "b85e3762e8684ac9",
        "cca9394375d96cbf",
        "6d88bd32fa00a576",
        "6a5f9a3955742684",
    ],
    "ea0d83b0e472": [
        "80395d19504d78a3",
        "dfa549617fbb8adc",
        "8b4745e1e0ae0f6d",
        "20018a54abc51019",
        "356592719ef9f450",
    ],
    "cc38f331b77b": ["ae0c4b2b730d84ff", "a19d204d5e15287e"],
    "d6b3434d0766": ["e1858eeb8b189c6e", "ef3ede08a7ca5040"],
    "ac5d29a767c9": ["305411437e8c784f", "6dbdec2434e4f3e3"],
    "7c39922fd4fe": ["55822184da89d02f", "7bf9d33f579ca64c"],
    "413e9b2f019c": ["0f43bbdfa20dc74f", "d263593ca7155136"],
    "e4ebe9399512": ["31ac192f18671301", "43616695251d1c8e"],
}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def question_key(question: str) -> str:
    return _sha(question.strip())[:12]


def probe_digest(probe: str) -> str:
    """'phrase' (whole corpus) or 'slug|phrase' (one document), normalised to lower-case words."""
    slug, _, phrase = probe.rpartition("|")
    words = _words(phrase)
    if not words or len(words) > MAX_PROBE_WORDS:
        raise ValueError(f"probe must have 1-{MAX_PROBE_WORDS} words: {probe!r}")
    return _sha(f"{slug.strip()}|{' '.join(words)}")[:16]


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
    sys.dont_write_bytecode = True  # keep the benchmark folder free of __pycache__
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
                if not SLUG_RE.match(slug) or slug != path.stem:
                    errors.append(f"{path.name}: slug {slug!r} is not the lower-case file stem")
                for key in ("related", "supersedes", "superseded_by"):
                    links.extend((path.name, t) for t in meta.get(key) or [])
                text = body + "\n" + str(meta.get("summary", ""))
            elif raw.startswith("---"):
                errors.append(f"{path.name}: frontmatter that does not parse")
                slug, text = stem_slug(path), body
            else:
                slug, text = stem_slug(path), body
            links.extend((path.name, t.strip()) for t in re.findall(r"\[\[([^\[\]|#\n]+)", body))
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


def corpus_probe_digests(corpus: dict[str, str]) -> set[str]:
    """Digests of every 1..MAX_PROBE_WORDS-word sequence, corpus-wide and per document."""
    digests: set[str] = set()
    for slug, text in corpus.items():
        words = _words(text)
        for n in range(1, MAX_PROBE_WORDS + 1):
            for i in range(len(words) - n + 1):
                gram = " ".join(words[i : i + n])
                digests.add(_sha(f"|{gram}")[:16])
                digests.add(_sha(f"{slug}|{gram}")[:16])
    return digests


def occurs(phrase: str, text: str) -> bool:
    start = r"(?<!\w)" if phrase[:1].isalnum() else ""
    end = r"(?!\w)" if phrase[-1:].isalnum() else ""
    return re.search(start + re.escape(phrase) + end, text, re.IGNORECASE) is not None


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--digest":
        question, *probes = sys.argv[2:]
        entry = {question_key(question): [probe_digest(p) for p in probes]}
        print(json.dumps(entry)[1:-1] + ",")
        return 0

    errors: list[str] = []
    warnings: list[str] = []
    corpus = load_corpus(errors)
    probe_hits = corpus_probe_digests(corpus)
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
    seen = Counter(r.get("q", "").strip().lower() for r in splits["gold"])
    if any(c > 1 for c in seen.values()):
        errors.append(f"{sum(c > 1 for c in seen.values())} question(s) repeated")

    conv_split: dict[str, str] = {}
    used_probe_keys: set[str] = set()
    for name in ("DEV", "HELDOUT"):
        seen_done: set[str] = set()
        previous = None
        for n, row in enumerate(splits[name], 1):
            where = f"{name}:{n}"
            for key in ("q", "facts", "slugs", "refuse", "kind"):
                if key not in row:
                    errors.append(f"{where}: missing {key}")
            extra = set(row) - {"q", "facts", "slugs", "refuse", "kind", "conversation", "stale"}
            if extra:
                errors.append(f"{where}: unexpected keys {sorted(extra)}")
            kind = row.get("kind")
            if kind not in KINDS:
                errors.append(f"{where}: unknown kind {kind}")
            conv = row.get("conversation")
            if previous and previous != conv:
                seen_done.add(previous)
            if conv:
                if conv in seen_done:
                    errors.append(f"{where}: conversation {conv} is not contiguous")
                if conv_split.setdefault(conv, name) != name:
                    errors.append(f"{where}: conversation {conv} spans splits")
            previous = conv
            if bool(row.get("refuse")) != (kind in REFUSAL_KINDS):
                errors.append(f"{where}: refuse={row.get('refuse')} does not fit kind {kind}")
            if row.get("refuse"):
                if row.get("facts") or row.get("slugs") or row.get("stale"):
                    errors.append(f"{where}: refusal with facts, slugs or stale values")
                key = question_key(row.get("q", ""))
                used_probe_keys.add(key)
                probes = REFUSAL_PROBES.get(key)
                if not probes:
                    errors.append(f"{where}: refusal without probe phrases (see --digest)")
                for i, digest in enumerate(probes or [], 1):
                    if digest in probe_hits:
                        errors.append(f"{where}: probe {i} occurs in the corpus")
                continue
            if not row.get("facts") or not row.get("slugs"):
                errors.append(f"{where}: answerable question without facts or slugs")
            if kind == "notes-vs-record" and not row.get("stale"):
                errors.append(f"{where}: notes-vs-record question without stale values")
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
                    if p.strip().lower() in COMMON:
                        errors.append(f"{where}: phrasing {p!r} is a bare common word")
                    if not (p[:1].isalnum() and p[-1:].isalnum()):
                        warnings.append(
                            f"{where}: phrasing {p!r} does not start/end with a word character"
                        )
            for value in row.get("stale", []):
                if value.lower() in phrasings:
                    errors.append(f"{where}: stale value {value!r} is also a fact phrasing")
    for key in set(REFUSAL_PROBES) - used_probe_keys:
        warnings.append(f"probe entry {key} belongs to no refusal question")

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
    print(
        f"documents: {len(corpus)}; conversations: {len(conv_split)}; "
        f"refusals: DEV {refusals['DEV']}, HELDOUT {refusals['HELDOUT']}"
    )
    for w in warnings:
        print("warning:", w)
    for e in errors:
        print("ERROR:", e)
    print("OK" if not errors else f"{len(errors)} error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
