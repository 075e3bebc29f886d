#!/usr/bin/env python3
"""Validate the round19 almanac probe set (standard library only)."""

import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "almanac", "docs")
QFILE = os.path.join(HERE, "almanac.jsonl")
KINDS = {"date", "person", "place", "number", "factoid", "list", "yes-no", "paraphrase"}
KEYS = {"q", "facts", "slugs", "refuse", "kind"}
# Terms behind the three "mentioned nowhere" near-misses: must not occur in any doc.
ABSENT = ["Everest", "Mariana", "Shackleton", "Endurance"]

errors = []


def err(msg):
    errors.append(msg)


def has(alt, text):
    return re.search(r"(?<!\w)" + re.escape(alt) + r"(?!\w)", text, re.I) is not None


# --- corpus ---
docs = {}
for name in sorted(os.listdir(DOCS)):
    if not name.endswith(".md"):
        err(f"unexpected file in docs: {name}")
        continue
    with open(os.path.join(DOCS, name), encoding="utf-8") as fh:
        text = fh.read()
    slug = name[:-3]
    docs[slug] = text
    lines = text.split("\n")
    if not lines[0].startswith("# ") or text.startswith("---"):
        err(f"{slug}: first line must be '# Title'")
    body = "\n".join(lines[1:]).strip()
    paras = [p for p in re.split(r"\n\s*\n", body) if p.strip()]
    if not 3 <= len(paras) <= 4:
        err(f"{slug}: {len(paras)} paragraphs (want 3-4)")
    words = len(body.split())
    if not 220 <= words <= 320:
        err(f"{slug}: {words} words (want 220-320)")
    for ln in body.split("\n"):
        if (
            re.match(r"\s*([-*+]|\d+[.)])\s", ln)
            or ln.lstrip().startswith("|")
            or ln.lstrip().startswith("#")
        ):
            err(f"{slug}: list/table/heading line in body: {ln[:40]!r}")
if len(docs) != 16:
    err(f"{len(docs)} docs (want 16)")
corpus = "\n".join(docs.values())
for term in ABSENT:
    if has(term, corpus):
        err(f"term {term!r} should appear in no doc")

# --- questions ---
rows = []
with open(QFILE, encoding="utf-8") as fh:
    for n, line in enumerate(fh, 1):
        if not line.strip():
            err(f"line {n}: blank line")
            continue
        try:
            rows.append((n, json.loads(line)))
        except json.JSONDecodeError as e:
            err(f"line {n}: bad JSON: {e}")

per_slug = collections.Counter()
kinds = collections.Counter()
seen_q = set()
for n, r in rows:
    if set(r) != KEYS:
        err(f"line {n}: keys {sorted(r)} != {sorted(KEYS)}")
        continue
    if not isinstance(r["q"], str) or not r["q"].strip():
        err(f"line {n}: empty q")
    if r["q"].lower() in seen_q:
        err(f"line {n}: duplicate question")
    seen_q.add(r["q"].lower())
    if not isinstance(r["refuse"], bool):
        err(f"line {n}: refuse must be bool")
    if not isinstance(r["facts"], list) or not all(
        isinstance(f, list) and f and all(isinstance(a, str) and a.strip() for a in f)
        for f in r["facts"]
    ):
        err(f"line {n}: facts must be a list of non-empty lists of strings")
        continue
    if not isinstance(r["slugs"], list) or not all(isinstance(s, str) for s in r["slugs"]):
        err(f"line {n}: slugs must be a list of strings")
        continue
    kinds[r["kind"]] += 1
    if r["refuse"]:
        if r["facts"] or r["slugs"] or r["kind"] != "near-miss":
            err(f"line {n}: refusal rows need facts=[], slugs=[], kind=near-miss")
        continue
    if r["kind"] not in KINDS:
        err(f"line {n}: bad kind {r['kind']!r}")
    if not r["facts"] or not r["slugs"]:
        err(f"line {n}: answerable row needs facts and slugs")
    for s in r["slugs"]:
        if s not in docs:
            err(f"line {n}: unknown slug {s!r}")
        per_slug[s] += 1
    text = "\n".join(docs.get(s, "") for s in r["slugs"])
    for fact in r["facts"]:
        if not any(has(a, text) for a in fact):
            err(f"line {n}: fact {fact} not found in {r['slugs']}")

answerable = sum(1 for _, r in rows if r.get("refuse") is False)
refusals = sum(1 for _, r in rows if r.get("refuse") is True)
if answerable != 32:
    err(f"{answerable} answerable (want 32)")
if refusals != 40:
    err(f"{refusals} near-miss (want 40)")
if kinds["paraphrase"] < 10:
    err(f"only {kinds['paraphrase']} paraphrase questions (want >= 10)")
for s in docs:
    if per_slug[s] != 2:
        err(f"{s}: {per_slug[s]} answerable questions (want 2)")

print(f"docs={len(docs)} questions={len(rows)} answerable={answerable} near-miss={refusals}")
print("kinds: " + ", ".join(f"{k}={v}" for k, v in sorted(kinds.items())))
if errors:
    for e in errors:
        print("ERROR:", e)
    sys.exit(1)
print("OK")
