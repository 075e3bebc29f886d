"""Sanity checks for the encyclopedia gold set.

Usage:  python check_gold.py            # structural + fact checks, exits non-zero on error
        python check_gold.py --review   # also print, for each refuse question, the
                                        # articles sharing most content words (manual review aid)
"""

import collections
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/answers: corpus_tools

from corpus_tools.gold import occurs, plain_boundaries, read_splits, repeated_questions

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
KINDS_ANS = {"factoid", "paraphrase", "number", "date", "person", "place", "yes-no", "list"}
KINDS_REF = {"near-miss", "off-topic"}
COMMON = {
    "yes",
    "no",
    "the",
    "a",
    "an",
    "of",
    "in",
    "on",
    "and",
    "or",
    "to",
    "is",
    "was",
    "it",
    "for",
    "by",
    "at",
    "one",
    "two",
    "new",
    "old",
    "first",
    "last",
}
errors = []


def err(msg):
    errors.append(msg)


def bounded(p):  # word-bounded, case-insensitive; tolerant of non-word characters at the edges
    return re.compile(r"(?<!\w)" + re.escape(p) + r"(?!\w)", re.IGNORECASE)


# ---- documents -------------------------------------------------------------
docs = {}
for path in sorted(DOCS.glob("*.md")):
    slug = path.stem
    text = path.read_text(encoding="utf-8")
    docs[slug] = text
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug):
        err(f"bad slug {slug}")
    lines = text.splitlines()
    if not lines or not lines[0].startswith("# "):
        err(f"{slug}: first line is not '# Title'")
    if text.startswith("---"):
        err(f"{slug}: has frontmatter")
    body = "\n".join(lines[1:]).strip()
    paras = [p for p in re.split(r"\n\s*\n", body) if p.strip()]
    words = len(body.split())
    if not 2 <= len(paras) <= 5:
        err(f"{slug}: {len(paras)} paragraphs")
    if not 150 <= words <= 450:
        err(f"{slug}: {words} words")
print(f"{len(docs)} articles")


# ---- questions -------------------------------------------------------------
splits = read_splits(HERE, errors)
dev, held, gold = splits["DEV"], splits["HELDOUT"], splits["gold"]
for q in repeated_questions(gold):
    err(f"duplicate question: {q}")

for split, rows in (("DEV", dev), ("HELDOUT", held)):
    for r in rows:
        tag = f"{split}: {r.get('q', '?')[:60]}"
        if set(r) != {"q", "facts", "slugs", "refuse", "kind"}:
            err(f"{tag}: keys {sorted(r)}")
            continue
        if not isinstance(r["q"], str) or not r["q"].strip().endswith("?"):
            err(f"{tag}: q")
        if r["refuse"]:
            if r["facts"] or r["slugs"]:
                err(f"{tag}: refuse question with facts/slugs")
            if r["kind"] not in KINDS_REF:
                err(f"{tag}: kind {r['kind']}")
            continue
        if r["kind"] not in KINDS_ANS:
            err(f"{tag}: kind {r['kind']}")
        if not r["slugs"] or not r["facts"]:
            err(f"{tag}: missing slugs/facts")
            continue
        for s in r["slugs"]:
            if s not in docs:
                err(f"{tag}: unknown slug {s}")
        text = "\n".join(docs.get(s, "") for s in r["slugs"])
        for fact in r["facts"]:
            if not isinstance(fact, list) or not fact:
                err(f"{tag}: fact not a non-empty list")
                continue
            for p in fact:
                if not isinstance(p, str) or not p.strip():
                    err(f"{tag}: empty phrasing")
                    continue
                if p.lower() in COMMON:
                    err(f"{tag}: phrasing too common: {p!r}")
                if not bounded(p).search(text):
                    err(f"{tag}: phrasing {p!r} not in article")
                elif (
                    re.match(r"\w", p)
                    and re.search(r"\w$", p)
                    and not occurs(p, text, plain_boundaries)
                ):
                    err(f"{tag}: phrasing {p!r} fails a plain \\b match")


# ---- split balance ---------------------------------------------------------
def counts(rows):
    return collections.Counter(r["kind"] for r in rows)


cd, ch = counts(dev), counts(held)
print(f"{'kind':<12}{'DEV':>5}{'HELD':>6}{'ALL':>6}")
for k in sorted(set(cd) | set(ch)):
    print(f"{k:<12}{cd[k]:>5}{ch[k]:>6}{cd[k] + ch[k]:>6}")
n_ans = sum(not r["refuse"] for r in gold)
print(
    f"{'total':<12}{len(dev):>5}{len(held):>6}{len(gold):>6}   answerable {n_ans / len(gold):.1%}"
)
for s in docs:
    d = sum(s in r["slugs"] for r in dev)
    h = sum(s in r["slugs"] for r in held)
    if not (d and h):
        err(f"article {s} not in both halves (dev {d}, held {h})")

# ---- review aid --------------------------------------------------------------
if "--review" in sys.argv:
    stop = set(
        "what which who whom when where how many much does did was were is are the a an of in on to for by "
        "at and or with from its his her their that this into after before first".split()
    )

    def toks(t):
        return {w for w in re.findall(r"\w+", t.lower()) if w not in stop and len(w) > 2}

    dt = {s: toks(t) for s, t in docs.items()}
    for r in gold:
        if not r["refuse"]:
            continue
        qt = toks(r["q"])
        best = sorted(dt, key=lambda s: -len(qt & dt[s]))[:2]
        print(
            f"[{r['kind']}] {r['q']}\n    -> " + ", ".join(f"{s}({len(qt & dt[s])})" for s in best)
        )

if errors:
    print(f"\n{len(errors)} ERROR(S):")
    [print("  " + e) for e in errors]
    sys.exit(1)
print("OK")
