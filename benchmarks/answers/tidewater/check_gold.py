"""Consistency checks for the Tidewater Water gold set.

    .venv/bin/python benchmarks/answers/tidewater/check_gold.py
    .venv/bin/python benchmarks/answers/tidewater/check_gold.py --digest "QUESTION" "PHRASE" ["slug|PHRASE" ...]

Checks: every line is valid JSON with the expected keys and a known kind; gold.jsonl is
DEV.jsonl + HELDOUT.jsonl; no question is repeated; conversations are contiguous and inside one
split; every slug exists (frontmatter slug or file stem) and every [[wikilink]] or frontmatter
link resolves; every Markdown document is 250-1200 words and carries valid frontmatter or none;
each fact has at least one phrasing that occurs, case-insensitively on word boundaries, in the
text of one of the question's gold documents (PDF/Word text both extracted from the file and
taken from build_binaries.py); no phrasing is a bare common word; notes-vs-record questions
carry stale values, every stale list has a value that occurs somewhere in the corpus, and no
stale value is also a fact phrasing; refusals carry no facts or slugs.

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
    "first last line lines time check never always day days hours week month site team "
    "water works main mains pump pumps chlorine sample samples crew customer customers "
    "alarm van".split()
)
MAX_PROBE_WORDS = 5

# sha256(question)[:12] -> sha256(normalised probe)[:16] for each probe; see --digest.
REFUSAL_PROBES: dict[str, list[str]] = {
    "317a6cffc08d": ["b61a539181694a4a", "97e9be333a613b51", "05cd57d1a4884733"],
    "ce640e9ff11d": ["86fcfbb609d336e0"],
    "95be52f99eb0": ["2a197c2d85d16f36", "9da2acbf20387036"],
    "1de1c1465ecb": ["f02879a955037b13"],
    "153ee6e5b992": ["36e70ec2209b038b", "3aa3463c3029ffd9", "398e22adeeca28c6"],
    "0b52dd659b7a": ["798b59d3396578cf", "f9f41161828b0b47"],
    "377857cd4376": ["ce79fa2a2c9fce56", "0cf2782467c984bc"],
    "4e5c25235bfa": ["7111fedc716fa068", "ce3e5ab4695e70e7"],
    "fccf52c8bebb": ["ed0dc7b8ca84fca7", "2aee96dd4129ad79"],
    "413ab8314151": ["2da5f2db0f33490f", "77009b205e482aee"],
    "5ebeb0dd7776": ["b594e6539aaff678"],
    "97fe3b0a7362": ["5271b82ffdaff88f", "85fa211268c7dc3a"],
    "4dbb0974b986": ["7c1017c54b6308e7", "507269abd05b890c"],
    "13129c07c852": ["7bcd514d59fd09ad", "cf6fe7ddd215ed20", "b0fbf7b9f67a047e"],
    "959f77eb5f1e": ["8d95b28399e646cd"],
    "7d5f9a8f5969": ["817c281bb8b6d585", "2cfd573a17d013b9"],
    "2a3470c5e819": ["589149c9b3d2d2e2", "f25257a3f330e4af", "27807b5ba5239fa0"],
    "3ed00ab60eba": ["537094dc4252c9e0"],
    "f0db252c253e": ["c50d3cb50ec4abcb"],
    "bcb433b4f3fc": ["9b0e5ed8995f4c59", "486f797487a22bf5"],
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
    corpus_text = "\n".join(corpus.values())
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
                    core = p.lstrip("£±").rstrip("%")  # currency, ± and % are fine
                    if not (core[:1].isalnum() and core[-1:].isalnum()):
                        warnings.append(
                            f"{where}: phrasing {p!r} does not start/end with a word character"
                        )
            stale_values = row.get("stale", [])
            if stale_values and not any(occurs(v, corpus_text) for v in stale_values):
                errors.append(f"{where}: no stale value occurs anywhere in the corpus")
            for value in stale_values:
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
