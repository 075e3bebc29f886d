"""YAML frontmatter -> validated metadata and edges; wikilinks in the body -> related_to."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from kb.ingestion.budget import IngestRejected
from kb.markup import slugify, wikilink_slugs
from kb.models import (
    TAG_MAX_CHARS,
    CanonicalStatus,
    CanonicalType,
    EdgeType,
    GenerationSource,
    is_canonical,
)

CANONICAL_TYPES = tuple(CanonicalType.values)
CANONICAL_STATUSES = tuple(CanonicalStatus.values)
GENERATION_SOURCES = tuple(GenerationSource.values)
# frontmatter key -> edge type
EDGE_KEYS: dict[str, str] = {
    "related": EdgeType.RELATED_TO,
    "supersedes": EdgeType.SUPERSEDES,
    "superseded_by": EdgeType.INVALIDATED_BY,
    "depends_on": EdgeType.DEPENDS_ON,
    "implements": EdgeType.IMPLEMENTS,
    "decision_for": EdgeType.DECISION_FOR,
    "uses": EdgeType.USES,
    "affects": EdgeType.AFFECTS,
    "documented_by": EdgeType.DOCUMENTED_BY,
    "owned_by": EdgeType.OWNED_BY,
}
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FENCE_OPEN_RE = re.compile(r"\A---[ \t]*\n")
FENCE_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)


@dataclass(frozen=True, kw_only=True)
class Frontmatter:
    """Validated frontmatter. `errors` lists what was rejected and why."""

    body: str
    canonical_type: str | None = None
    canonical_status: str | None = None
    slug: str | None = None
    doc_id: str = ""
    title: str | None = None
    retrieval_priority: int = 50
    tags: list[str] = field(default_factory=list)
    owners: list[str] = field(default_factory=list)
    summary: str = ""
    generation_source: str = "human"
    edges: list[tuple[str, str]] = field(default_factory=list)  # (edge_type, to_slug)
    raw: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    @property
    def is_canonical(self) -> bool:
        # a record from frontmatter also needs a slug others can link to
        return is_canonical(self.canonical_type, self.canonical_status) and bool(self.slug)


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """(yaml block or None, body). The block must open on line 1 and close with --- or ...."""
    opening = FENCE_OPEN_RE.match(text.lstrip("\ufeff"))
    if not opening:
        return None, text
    text = text.lstrip("\ufeff")
    closing = FENCE_CLOSE_RE.search(text, opening.end())
    if not closing:
        return None, text
    end = closing.end()
    if end < len(text) and text[end] == "\n":
        end += 1
    return text[opening.end() : closing.start()], text[end:]


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader refusing aliases (billion laughs, self-reference) and deep nesting: the
    composer recurses once per level, so depth must be capped before Python's stack is."""

    max_depth = 20
    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise IngestRejected("frontmatter uses a YAML alias (*name); aliases are not allowed")
        self.depth += 1
        try:
            if self.depth > self.max_depth:
                raise IngestRejected(
                    f"frontmatter is nested deeper than {self.max_depth} levels "
                    "(KB_INGEST_MAX_NESTING)"
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _load_yaml(block: str, *, max_depth: int) -> Any:
    loader = _BoundedLoader(block)
    loader.max_depth = max_depth
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def _string_list(
    value: Any, key: str, errors: list[str], *, max_chars: int | None = None
) -> list[str]:
    """Items of a list (or comma-separated string); one wider than `max_chars` is refused."""
    if value is None:
        return []
    if isinstance(value, str):
        # str.split, not a regex: "\s*,\s*" backtracks quadratically on runs of spaces
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, list) or not all(
        isinstance(item, str | int | float) for item in value
    ):
        errors.append(f"frontmatter {key!r} must be a list of strings; ignored")
        return []
    out: list[str] = []
    for item in value:
        text = str(item).strip()
        if max_chars is not None and len(text) > max_chars:
            raise IngestRejected(
                f"frontmatter {key!r}: {text[:40]!r}... is longer than {max_chars} characters"
            )
        if text and text not in out:
            out.append(text[:200])
    return out


def parse_frontmatter(text: str, *, max_bytes: int = 64 * 1024, max_depth: int = 20) -> Frontmatter:
    """Parse and validate frontmatter; invalid YAML leaves a plain document with the error.

    Raises IngestRejected for hostile frontmatter: over `max_bytes`, nested deeper than
    `max_depth`, YAML aliases, or a tag wider than its column.
    """
    block, body = split_frontmatter(text)
    if block is None:
        return Frontmatter(body=text, edges=[("related_to", s) for s in wikilink_slugs(text)])
    size = len(block.encode("utf-8", "replace"))
    if size > max_bytes:
        raise IngestRejected(
            f"frontmatter is {size} bytes; the limit is {max_bytes} bytes "
            "(KB_INGEST_MAX_FRONTMATTER_BYTES)"
        )
    try:
        raw = _load_yaml(block, max_depth=max_depth) if block.strip() else {}
    except yaml.YAMLError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        return Frontmatter(
            body=text,
            edges=[("related_to", s) for s in wikilink_slugs(text)],
            errors=[f"invalid frontmatter YAML ({reason}); ingested as a plain document"],
        )
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        return Frontmatter(
            body=text,
            edges=[("related_to", s) for s in wikilink_slugs(text)],
            errors=["frontmatter is not a key: value mapping; ingested as a plain document"],
        )
    errors: list[str] = []
    raw = {str(key): value for key, value in raw.items()}

    def choice(key: str, allowed: tuple[str, ...]) -> str | None:
        value = raw.get(key)
        if value is None:
            return None
        text_value = str(value).strip().lower()
        if text_value not in allowed:
            errors.append(f"frontmatter {key!r}: {value!r} is not one of {', '.join(allowed)}")
            return None
        return text_value

    canonical_type = choice("type", CANONICAL_TYPES)
    canonical_status = choice("status", CANONICAL_STATUSES)
    generation_source = choice("generation_source", GENERATION_SOURCES) or "human"

    slug = None
    if raw.get("slug") is not None:
        candidate = str(raw["slug"]).strip()
        if SLUG_RE.match(candidate) and len(candidate) <= 200:
            slug = candidate
        else:
            errors.append(f"frontmatter 'slug': {candidate!r} is not a kebab-case slug")

    priority = 50
    if raw.get("retrieval_priority") is not None:
        value = raw["retrieval_priority"]
        if isinstance(value, bool) or not isinstance(value, int | str):
            errors.append("frontmatter 'retrieval_priority' must be an integer 0-100")
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                errors.append("frontmatter 'retrieval_priority' must be an integer 0-100")
            else:
                if 0 <= number <= 100:
                    priority = number
                else:
                    errors.append(
                        f"frontmatter 'retrieval_priority' {number} is outside 0-100; using 50"
                    )

    title = raw.get("title")
    title = str(title).strip()[:500] if title is not None and str(title).strip() else None
    summary = raw.get("summary")
    summary = str(summary).strip() if summary is not None else ""
    doc_id = str(raw.get("id", "") or "").strip()[:100]

    edges: list[tuple[str, str]] = []
    for key, edge_type in EDGE_KEYS.items():
        for target in _string_list(raw.get(key), key, errors):
            target_slug = slugify(target.strip("[]"))
            if target_slug and (edge_type, target_slug) not in edges:
                edges.append((edge_type, target_slug))
    for target_slug in wikilink_slugs(body):
        if ("related_to", target_slug) not in edges:
            edges.append(("related_to", target_slug))
    if slug:
        edges = [(kind, target) for kind, target in edges if target != slug]

    return Frontmatter(
        body=body,
        canonical_type=canonical_type,
        canonical_status=canonical_status,
        slug=slug,
        doc_id=doc_id,
        title=title,
        retrieval_priority=priority,
        tags=[
            tag.lower()
            for tag in _string_list(raw.get("tags"), "tags", errors, max_chars=TAG_MAX_CHARS)
        ],
        owners=_string_list(raw.get("owners"), "owners", errors),
        summary=summary,
        generation_source=generation_source,
        edges=edges,
        raw=_json_safe(raw),
        errors=errors,
    )


def _json_safe(value: Any) -> Any:
    """YAML values (dates, sets) made JSON-serialisable for Document.metadata."""
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set):
        return [_json_safe(item) for item in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)
