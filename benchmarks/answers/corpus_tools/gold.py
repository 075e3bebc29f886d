"""The gold-set checks behind every benchmarks/answers/<name>/check_gold.py.

A gold set is DEV.jsonl + HELDOUT.jsonl (= gold.jsonl) of questions about the documents in docs/.
The checks every set makes live here once; where the sets' rules differ (a set's own list of
common words, its refusal probes, checks an older set never made), the set's check_gold.py says
so through a Rules. Messages never quote a question, so the output reveals no held-out question.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

SPLITS = ("DEV", "HELDOUT")
KINDS = frozenset(
    {
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
)
REFUSAL_KINDS = frozenset({"near-miss", "off-topic"})
REQUIRED_KEYS = ("q", "facts", "slugs", "refuse", "kind")
ALLOWED_KEYS = frozenset({*REQUIRED_KEYS, "conversation", "stale"})
CANONICAL_TYPES = frozenset(
    {
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
)
CANONICAL_STATUSES = frozenset(
    {"draft", "review", "accepted", "superseded", "deprecated", "archived"}
)
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
WIKILINK_RE = re.compile(r"\[\[([^\[\]|#\n]+)")
LINK_KEYS = ("related", "supersedes", "superseded_by")
TEXT_SUFFIXES = (".md", ".txt", ".html")
# A fact phrasing must never be one of these on its own: it would match almost any answer.
# A set adds the words its own domain uses everywhere.
COMMON_WORDS = frozenset(
    "a an the and or of in on at to for by is are was were it yes no not none all one two new old "
    "first last line lines time check never always day days hours week site team".split()
)


# ---- matching a phrasing in a text -------------------------------------------------------


def plain_boundaries(phrase: str) -> str:
    r"""`\b` on both sides, as a reader's regex would try; it cannot find a phrasing that starts
    or ends with a symbol (£, %) unless a word character touches that symbol."""
    return r"\b" + re.escape(phrase) + r"\b"


def word_edges(phrase: str) -> str:
    """No word character against the phrasing only where the phrasing itself starts or ends with
    one, so "12 days" does not match inside "112 days" and "£268" is still found after a space."""
    start = r"(?<!\w)" if phrase[:1].isalnum() else ""
    end = r"(?!\w)" if phrase[-1:].isalnum() else ""
    return start + re.escape(phrase) + end


def occurs(phrase: str, text: str, boundaries: Callable[[str], str]) -> bool:
    return re.search(boundaries(phrase), text, re.IGNORECASE) is not None


# ---- the gold lines ----------------------------------------------------------------------


def read_jsonl(path: Path, errors: list[str]) -> list[dict]:
    """The rows of a JSONL file; a bad line is reported and left out, so one typo does not hide
    every other problem."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            errors.append(f"{path.name}:{n}: blank line")
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            errors.append(f"{path.name}:{n}: invalid JSON ({exc})")
    return rows


def read_splits(here: Path, errors: list[str]) -> dict[str, list[dict]]:
    """DEV, HELDOUT and gold of the set in `here`, and an error unless gold is DEV + HELDOUT:
    the benchmarks read gold.jsonl, the tuning reads DEV, and they must not drift apart."""
    splits = {name: read_jsonl(here / f"{name}.jsonl", errors) for name in (*SPLITS, "gold")}
    if splits["gold"] != splits["DEV"] + splits["HELDOUT"]:
        errors.append("gold.jsonl is not DEV.jsonl + HELDOUT.jsonl")
    return splits


def repeated_questions(rows: Iterable[dict]) -> list[str]:
    """The questions (stripped, lower-case) asked more than once: a repeat weighs double."""
    seen = Counter(str(r.get("q", "")).strip().lower() for r in rows)
    return [q for q, count in seen.items() if count > 1]


def conversation_homes(splits: dict[str, list[dict]]) -> dict[str, str]:
    """The split each conversation is first seen in."""
    homes: dict[str, str] = {}
    for name in SPLITS:
        for row in splits[name]:
            if row.get("conversation"):
                homes.setdefault(row["conversation"], name)
    return homes


def conversation_errors(splits: dict[str, list[dict]]) -> list[str]:
    """A follow-up is asked after its conversation's earlier turns, so a conversation must be
    one unbroken run of lines, all in one split."""
    homes = conversation_homes(splits)
    errors = []
    for name in SPLITS:
        finished: set[str] = set()
        previous = None
        for n, row in enumerate(splits[name], 1):
            conv = row.get("conversation")
            if previous and previous != conv:
                finished.add(previous)
            if conv in finished:
                errors.append(f"{name}:{n}: conversation {conv} is not contiguous")
            if conv and homes[conv] != name:
                errors.append(f"{name}:{n}: conversation {conv} spans splits")
            previous = conv
    return errors


# ---- the documents -----------------------------------------------------------------------


def stem_slug(path: Path) -> str:
    """The slug the knowledge base gives a file without frontmatter: its lower-case stem."""
    return re.sub(r"[\s_]+", "-", path.stem.lower())


def file_stem(path: Path) -> str:
    """The file name as it is: a frontmatter slug must match it exactly, case included."""
    return path.stem


def split_frontmatter(text: str) -> tuple[dict | None, str]:
    if not text.startswith("---\n"):
        return None, text
    end = re.search(r"^---[ \t]*$", text[4:], re.MULTILINE)
    if not end:
        return None, text
    return yaml.safe_load(text[4 : 4 + end.start()]), text[4 + end.end() :]


def pdf_text(path: Path) -> str:
    import pdfplumber  # only the sets with PDFs need it

    with pdfplumber.open(path) as pdf:
        return "\n".join(page.extract_text() or "" for page in pdf.pages)


def docx_text(path: Path) -> str:
    import docx  # only the sets with Word files need it

    document = docx.Document(path)
    parts = [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            parts.append(" | ".join(cell.text for cell in row.cells))
    return "\n".join(parts)


@dataclass(frozen=True)
class Document:
    """One file of docs/ as the checks see it: its slug, its text, the slugs it links to and
    what is wrong with it on its own."""

    slug: str
    text: str
    links: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()


def frontmatter_errors(path: Path, meta: dict, slug: str, rules: Rules) -> list[str]:
    errors = []
    if meta.get("type") not in CANONICAL_TYPES or meta.get("status") not in CANONICAL_STATUSES:
        errors.append(f"{path.name}: bad type/status {meta.get('type')}/{meta.get('status')}")
    if not SLUG_RE.match(slug):
        errors.append(f"{path.name}: bad slug {slug!r}")
    elif rules.slug_of and slug != rules.slug_of(path):
        errors.append(f"{path.name}: slug {slug!r} is not the lower-case file stem")
    return errors


def plain_file_errors(path: Path, raw: str, slug: str, rules: Rules) -> list[str]:
    errors = []
    if rules.frontmatter_must_parse and raw.startswith("---"):
        errors.append(f"{path.name}: frontmatter that does not parse")
    if rules.names_are_slugs and not SLUG_RE.match(slug):
        errors.append(f"{path.name}: file name is not lower-case-hyphenated")
    return errors


def text_document(path: Path, rules: Rules) -> Document:
    """A Markdown, text or HTML file: frontmatter (type, status, slug, links, summary) where it
    has one, and 250-1200 words if Markdown, the size of a real knowledge-base page."""
    raw = path.read_text(encoding="utf-8")
    suffix = path.suffix.lower()
    meta, body = split_frontmatter(raw) if suffix == ".md" else (None, raw)
    if suffix == ".html":
        body = html.unescape(re.sub(r"<[^>]+>", " ", body))
    wikilinks = [target.strip() for target in WIKILINK_RE.findall(body)]
    if meta:
        slug = str(meta.get("slug", ""))
        errors = frontmatter_errors(path, meta, slug, rules)
        links = [str(t) for key in LINK_KEYS for t in meta.get(key) or []] + wikilinks
        text = body + "\n" + str(meta.get("summary", ""))
    else:
        slug, text, links = stem_slug(path), body, wikilinks
        errors = plain_file_errors(path, raw, slug, rules)
    words = len(re.findall(r"\w+", text))
    if suffix == ".md" and not 250 <= words <= 1200:
        errors.append(f"{path.name}: {words} words (want 250-1200)")
    return Document(slug, text, tuple(links), tuple(errors))


def read_document(path: Path, sources: dict[str, str], rules: Rules) -> Document | None:
    """The document in `path`, or None for a file the corpus does not serve. A PDF or Word
    file's text is what extraction finds plus the text build_binaries.py wrote into it, so a
    fact is found even where extraction splits a table cell."""
    suffix = path.suffix.lower()
    if suffix in TEXT_SUFFIXES:
        return text_document(path, rules)
    extract = {".pdf": pdf_text, ".docx": docx_text}.get(suffix)
    if extract is None:
        return None
    slug = stem_slug(path)
    return Document(slug, extract(path) + "\n" + sources.get(slug, ""))


def load_corpus(docs: Path, sources: dict[str, str], rules: Rules, errors: list[str]) -> dict:
    """Slug -> text of every document in docs/, reporting duplicate slugs and links (frontmatter
    or [[wikilink]]) to a slug no document has."""
    corpus: dict[str, str] = {}
    links: list[tuple[str, str]] = []
    for path in sorted(docs.iterdir()):
        document = read_document(path, sources, rules)
        if document is None:
            continue
        errors.extend(document.errors)
        if document.slug in corpus:
            errors.append(f"duplicate slug {document.slug}")
        corpus[document.slug] = document.text
        links.extend((path.name, target) for target in document.links)
    for source, target in links:
        named_file = rules.links_may_name_files and (docs / f"{target}.md").exists()
        if target not in corpus and not named_file:
            errors.append(f"{source}: link to unknown slug {target}")
    return corpus


# ---- refusal probes ----------------------------------------------------------------------


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ProbeTable:
    """A refusal is only right if the corpus really does not state what it asks about. Each
    refusal has probe phrases that must NOT occur in the corpus, either anywhere ("phrase") or in
    one document ("slug|phrase"). They are stored as SHA-256 digests keyed by a digest of the
    question, so the script does not reveal held-out questions; entry() (`--digest`) makes a new
    one.
    """

    entries: dict[str, list[str]]
    max_words: int = 5

    def key(self, question: str) -> str:
        return _sha(question.strip())[:12]

    def words(self, text: str) -> list[str]:
        return re.findall(r"\w+", text.lower())

    def digest(self, scope: str, gram: str) -> str:
        """The digest of a run of words, in one document (scope = its slug) or anywhere ("")."""
        return _sha(f"{scope}|{gram}")[:16]

    def phrase_digest(self, probe: str) -> str:
        scope, _, phrase = probe.rpartition("|")
        words = self.words(phrase)
        if not words or len(words) > self.max_words:
            raise ValueError(f"probe must have 1-{self.max_words} words: {probe!r}")
        return self.digest(scope.strip(), " ".join(words))

    def corpus_digests(self, corpus: dict[str, str]) -> set[str]:
        """Digests of every run of words a probe could be, corpus-wide and per document."""
        digests: set[str] = set()
        for slug, text in corpus.items():
            words = self.words(text)
            for n in range(1, self.max_words + 1):
                for i in range(len(words) - n + 1):
                    gram = " ".join(words[i : i + n])
                    digests.update((self.digest("", gram), self.digest(slug, gram)))
        return digests

    def errors(self, question: str, corpus_digests: set[str]) -> list[str]:
        probes = self.entries.get(self.key(question))
        if not probes:
            return ["refusal without probe phrases in REFUSAL_PROBES"]
        return [
            f"probe {i} occurs in the corpus"
            for i, digest in enumerate(probes, 1)
            if digest in corpus_digests
        ]

    def unused(self, questions: Iterable[str]) -> list[str]:
        """Entries no refusal question owns: left behind when a question was edited."""
        owned = {self.key(q) for q in questions}
        return [
            f"probe entry {key} belongs to no refusal question"
            for key in self.entries
            if key not in owned
        ]

    def entry(self, question: str, probes: Sequence[str]) -> str:
        """The line to paste into REFUSAL_PROBES for a new refusal."""
        return json.dumps({self.key(question): [self.phrase_digest(p) for p in probes]})[1:-1] + ","


# ---- the rules of one set ----------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """What one gold set checks. The defaults are the full checks of the newest sets; an older
    set turns off, by name, each check it never made, so every difference shows in its script.
    """

    # refusal subject probes; None: the set has none
    probes: ProbeTable | None
    # a phrasing equal to one of these is too common to show that an answer states the fact
    common_words: frozenset[str] = COMMON_WORDS
    # how a phrasing must be bounded to count as stated: word_edges or plain_boundaries
    boundaries: Callable[[str], str] = word_edges
    # symbols a phrasing may start / end with and not be warned about (a currency, a % sign)
    edge_symbols: tuple[str, str] = ("", "")
    # what a frontmatter slug must equal, given its file; None: any well-formed slug
    slug_of: Callable[[Path], str] | None = file_stem
    # a file that starts with "---" must have frontmatter that parses
    frontmatter_must_parse: bool = True
    # a file without frontmatter must be named as a slug
    names_are_slugs: bool = False
    # a link may name a Markdown file of docs/ instead of a slug
    links_may_name_files: bool = False
    # keys a gold line may have; None: any
    allowed_keys: frozenset[str] | None = ALLOWED_KEYS
    # the kinds that are refusals, and only they; None: `refuse` is not checked against `kind`
    refusal_kinds: frozenset[str] | None = REFUSAL_KINDS
    # what a refusal must leave empty
    refusal_leaves_empty: tuple[str, ...] = ("facts", "slugs", "stale")
    # kinds that ask for the current value where a document states an outdated one
    stale_needed_by: frozenset[str] = frozenset({"notes-vs-record"})
    # some stale value of a line must occur in the corpus, or the line tests nothing
    stale_must_occur: bool = True
    # no question may be asked twice (it would weigh double)
    unique_questions: bool = True
    # kinds that need not be in both splits
    unbalanced_kinds: frozenset[str] = frozenset()


# ---- the checks of one gold line ---------------------------------------------------------


def shape_errors(row: dict, rules: Rules) -> list[str]:
    errors = [f"missing {key}" for key in REQUIRED_KEYS if key not in row]
    extra = set(row) - rules.allowed_keys if rules.allowed_keys is not None else set()
    if extra:
        errors.append(f"unexpected keys {sorted(extra)}")
    kind = row.get("kind")
    if kind not in KINDS:
        errors.append(f"unknown kind {kind}")
    if rules.refusal_kinds is not None and bool(row.get("refuse")) != (kind in rules.refusal_kinds):
        errors.append(f"refuse={row.get('refuse')} does not fit kind {kind}")
    return errors


def refusal_errors(row: dict, rules: Rules, corpus_digests: set[str]) -> list[str]:
    """A refusal states nothing, and its subject must really be absent from the corpus."""
    carried = [key for key in rules.refusal_leaves_empty if row.get(key)]
    errors = [f"refusal with {', '.join(carried)}"] if carried else []
    if rules.probes:
        errors += rules.probes.errors(str(row.get("q", "")), corpus_digests)
    return errors


def fact_errors(fact: object, slugs: list[str], gold_text: str, rules: Rules) -> list[str]:
    if not isinstance(fact, list) or not fact:
        return ["fact must be a non-empty list"]
    errors = []
    if not any(occurs(p, gold_text, rules.boundaries) for p in fact):
        errors.append(f"no phrasing of fact {fact} occurs in {slugs}")
    return errors + [
        f"phrasing {p!r} is a bare common word"
        for p in fact
        if p.strip().lower() in rules.common_words
    ]


def answer_errors(row: dict, corpus: dict[str, str], corpus_text: str, rules: Rules) -> list[str]:
    """Every fact of an answerable question must be stated, in one of its phrasings, by the
    question's gold documents: otherwise the benchmark scores a right answer as wrong."""
    errors = []
    if not row.get("facts") or not row.get("slugs"):
        errors.append("answerable question without facts or slugs")
    if row.get("kind") in rules.stale_needed_by and not row.get("stale"):
        errors.append(f"{row.get('kind')} question without stale values")
    errors += [f"unknown slug {slug}" for slug in row.get("slugs", []) if slug not in corpus]
    gold_text = "\n".join(corpus.get(s, "") for s in row.get("slugs", []))
    for fact in row.get("facts", []):
        errors += fact_errors(fact, row.get("slugs"), gold_text, rules)
    return errors + stale_errors(row, corpus_text, rules)


def stale_errors(row: dict, corpus_text: str, rules: Rules) -> list[str]:
    """A stale value is the outdated answer: it must not also count as the right one."""
    stale = row.get("stale", [])
    errors = []
    if (
        rules.stale_must_occur
        and stale
        and not any(occurs(v, corpus_text, rules.boundaries) for v in stale)
    ):
        errors.append("no stale value occurs anywhere in the corpus")
    phrasings = {p.lower() for fact in row.get("facts", []) if isinstance(fact, list) for p in fact}
    return errors + [
        f"stale value {v!r} is also a fact phrasing" for v in stale if v.lower() in phrasings
    ]


def phrasing_warnings(row: dict, rules: Rules) -> list[str]:
    """A phrasing with a symbol at an edge is matched without a word boundary there, so it may
    match inside a longer token: worth a look, not an error."""
    lead, trail = rules.edge_symbols
    warnings = []
    for fact in row.get("facts", []):
        for p in fact if isinstance(fact, list) else []:
            core = p.lstrip(lead).rstrip(trail)
            if not (core[:1].isalnum() and core[-1:].isalnum()):
                warnings.append(f"phrasing {p!r} does not start/end with a word character")
    return warnings


# ---- one run over a set ------------------------------------------------------------------


@dataclass(frozen=True)
class Tally:
    """What a set's summary line counts."""

    documents: int
    conversations: Counter[str]  # per split they belong to
    refusals: Counter[str]  # per split


def kind_table(splits: dict[str, list[dict]]) -> list[str]:
    counts = {name: Counter(r.get("kind") for r in splits[name]) for name in SPLITS}
    lines = [f"{'kind':<16}{'DEV':>5}{'HELDOUT':>9}{'total':>7}"]
    for kind in sorted(KINDS):
        d, h = counts["DEV"][kind], counts["HELDOUT"][kind]
        lines.append(f"{kind:<16}{d:>5}{h:>9}{d + h:>7}")
    dev, held, gold = (len(splits[name]) for name in (*SPLITS, "gold"))
    return lines + [f"{'total':<16}{dev:>5}{held:>9}{gold:>7}"]


def balance_errors(splits: dict[str, list[dict]], rules: Rules) -> list[str]:
    """Every kind in both splits, so tuning on DEV cannot miss a kind HELDOUT scores."""
    present = [{r.get("kind") for r in splits[name]} for name in SPLITS]
    return [
        f"kind {kind} missing from a split"
        for kind in sorted(KINDS - rules.unbalanced_kinds)
        if not all(kind in kinds for kinds in present)
    ]


def summary(tally: Tally) -> list[str]:
    return [
        f"documents: {tally.documents}; conversations: {tally.conversations.total()}; "
        f"refusals: DEV {tally.refusals['DEV']}, HELDOUT {tally.refusals['HELDOUT']}"
    ]


def line_findings(
    splits: dict[str, list[dict]], corpus: dict[str, str], rules: Rules
) -> tuple[list[str], list[str]]:
    """Errors and warnings of every DEV and HELDOUT line, each prefixed with where it is."""
    errors: list[str] = []
    warnings: list[str] = []
    corpus_text = "\n".join(corpus.values())
    digests = rules.probes.corpus_digests(corpus) if rules.probes else set()
    for name in SPLITS:
        for n, row in enumerate(splits[name], 1):
            found = shape_errors(row, rules)
            if row.get("refuse"):
                found += refusal_errors(row, rules, digests)
            else:
                found += answer_errors(row, corpus, corpus_text, rules)
                warnings += [f"{name}:{n}: {w}" for w in phrasing_warnings(row, rules)]
            errors += [f"{name}:{n}: {e}" for e in found]
    return errors, warnings


def main(
    here: Path,
    sources: dict[str, str],
    rules: Rules,
    report: Callable[[Tally], list[str]] = summary,
    args: Sequence[str] = (),
) -> int:
    """Check the set in `here`: print the kind table, the set's summary (`report`), every warning
    and error; exit status 1 on any error. With args `--digest QUESTION PROBE...` print a new
    REFUSAL_PROBES entry instead."""
    if args and args[0] == "--digest" and rules.probes:
        print(rules.probes.entry(args[1], args[2:]))
        return 0
    errors: list[str] = []
    corpus = load_corpus(here / "docs", sources, rules, errors)
    splits = read_splits(here, errors)
    repeated = repeated_questions(splits["gold"]) if rules.unique_questions else []
    if repeated:
        errors.append(f"{len(repeated)} question(s) repeated")
    errors += conversation_errors(splits)
    line_errors, warnings = line_findings(splits, corpus, rules)
    refusals = [(name, row) for name in SPLITS for row in splits[name] if row.get("refuse")]
    if rules.probes:
        warnings += rules.probes.unused(str(row.get("q", "")) for _, row in refusals)
    errors += line_errors + balance_errors(splits, rules)
    tally = Tally(
        documents=len(corpus),
        conversations=Counter(conversation_homes(splits).values()),
        refusals=Counter(name for name, _ in refusals),
    )
    for line in kind_table(splits) + report(tally):
        print(line)
    for warning in warnings:
        print("warning:", warning)
    for error in errors:
        print("ERROR:", error)
    print("OK" if not errors else f"{len(errors)} error(s)")
    return 1 if errors else 0
