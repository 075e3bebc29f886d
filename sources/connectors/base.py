"""The one interface of a connector: list the changes since a cursor, fetch one item.

A kind is one module in this package that defines a `ConnectorKind` (its name, its settings
as a DRF serializer, which of them are secret, and how to build the connector) and is listed
in `sources.connectors.KINDS`. The sync (`sources.sync`) does the rest: it ingests through
kb's write path, keeps the item <-> document map, soft-deletes, counts and records errors.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from django.conf import settings
from rest_framework import serializers

from kb.ingestion.extract import detect_source_type


class ConnectorError(Exception):
    """The source cannot be read at all (bad URL, credentials, branch): the sync stops, the
    message is shown on the source as is, so it must say what to fix and hold no secret."""


class FetchError(OSError):
    """One item cannot be read; the sync counts it as failed and goes on with the others.
    (An OSError, so kb's ingest reports it on that item as it does an unreadable file.)"""


class ChangeKind(StrEnum):
    UPSERT = "upsert"  # added or changed
    RENAME = "rename"  # moved from `previous_id` (and maybe changed)
    DELETE = "delete"


@dataclass(frozen=True, kw_only=True)
class Change:
    """One item changed upstream. `external_id` is stable for the item's life upstream and
    unique in the source; `path` is how it is shown (and named in the document's path)."""

    kind: ChangeKind
    external_id: str
    path: str = ""
    previous_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class ChangeSet:
    """The changes since a cursor, and the cursor to store once they are all applied.
    `full`: the changes list every item there is (a first sync, or a history that no longer
    holds the old cursor): items the source has and the list does not are deleted."""

    changes: list[Change]
    cursor: str
    full: bool = False


@dataclass(frozen=True, kw_only=True)
class Fetched:
    """One item's bytes, a file name whose extension says its type, and metadata kept on the
    document (e.g. {"url": link to the file at this revision, "revision": ...})."""

    content: bytes
    name: str
    metadata: dict[str, Any] = field(default_factory=dict)


class Connector(Protocol):
    def changes(self, cursor: str) -> ChangeSet:
        """The changes since `cursor` ("" for the first sync). Raises ConnectorError."""
        ...

    def fetch(self, change: Change, cursor: str) -> Fetched:
        """One item as of `cursor` (the ChangeSet's). Raises FetchError."""
        ...

    def close(self) -> None:
        """Free what the connector holds (processes, sessions)."""
        ...


@dataclass(frozen=True, kw_only=True)
class ConnectorKind:
    """A kind of source: its settings (a serializer: the API's and the page's one check),
    which of them are secret (stored encrypted, never shown back) and its factory."""

    name: str
    label: str
    settings_serializer: type[serializers.Serializer]
    build: Callable[[dict[str, Any], str], Connector]  # (settings with secrets, cache key)
    secret_fields: tuple[str, ...] = ()
    # removes what the kind keeps on disk for a cache key (a clone), once its source is gone
    forget: Callable[[str], None] | None = None


DEFAULT_GLOBS = ["*.md", "*.markdown", "*.txt", "*.pdf", "*.docx"]


class GlobsField(serializers.ListField):
    """Path globs (fnmatch: `*` also crosses folders), one a line on the page."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("child", serializers.CharField(max_length=200))
        kwargs.setdefault("max_length", 50)
        kwargs.setdefault("required", False)
        kwargs.setdefault("default", DEFAULT_GLOBS)
        kwargs.setdefault(
            "help_text",
            "Which files to read, one pattern a line (e.g. docs/*.md); * also matches "
            "across folders. Only Markdown, text, HTML, PDF and Word files are read.",
        )
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> list[str]:
        if isinstance(data, str):
            data = [line.strip() for line in data.splitlines() if line.strip()]
        globs = super().to_internal_value(data)
        if not globs:
            raise serializers.ValidationError("Give at least one pattern.")
        return globs


def wanted(path: str, globs: list[str]) -> bool:
    """Whether a path matches the globs and is of a type kb reads."""
    if detect_source_type(path) is None:
        return False
    return any(fnmatch.fnmatchcase(path, glob) for glob in globs)


def local_path_allowed(raw: str) -> Path:
    """An absolute local path inside one of the operator's SOURCES_LOCAL_ROOTS, resolved;
    a ValidationError otherwise (editors never read the server's other files)."""
    path = Path(raw).expanduser()
    if not path.is_absolute():
        raise serializers.ValidationError("Give an absolute path.")
    resolved = path.resolve()
    roots = [Path(root).resolve() for root in settings.SOURCES_LOCAL_ROOTS]
    if not any(resolved == root or root in resolved.parents for root in roots):
        if not roots:
            raise serializers.ValidationError(
                "Local paths are off on this server (the operator sets SOURCES_LOCAL_ROOTS)."
            )
        raise serializers.ValidationError(
            "The path is outside the folders this server allows (SOURCES_LOCAL_ROOTS): "
            + ", ".join(str(root) for root in roots)
        )
    return resolved


def listing_changes(old: dict[str, str], new: dict[str, str]) -> list[Change]:
    """The changes between two listings {path: content fingerprint} (a hash, an ETag): new
    paths are added, or renamed when their fingerprint left a vanished path; paths whose
    fingerprint differs are changed; vanished paths are deleted."""
    removed = {path: old[path] for path in old if path not in new}
    vanished_by_print: dict[str, list[str]] = {}
    for path, fingerprint in removed.items():
        vanished_by_print.setdefault(fingerprint, []).append(path)
    changes: list[Change] = []
    for path in new:
        if path in old:
            if old[path] != new[path]:
                changes.append(Change(kind=ChangeKind.UPSERT, external_id=path, path=path))
            continue
        moved_from = vanished_by_print.get(new[path])
        if moved_from:
            previous = moved_from.pop(0)
            del removed[previous]
            changes.append(
                Change(kind=ChangeKind.RENAME, external_id=path, path=path, previous_id=previous)
            )
        else:
            changes.append(Change(kind=ChangeKind.UPSERT, external_id=path, path=path))
    changes.extend(Change(kind=ChangeKind.DELETE, external_id=path, path=path) for path in removed)
    return changes


def web_url_check(value: str, *, what: str) -> str:
    """An https:// URL without credentials (http:// too when DEBUG or testing): the one
    check of the web addresses a source reads."""
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise serializers.ValidationError(f"Give an https:// URL of the {what}.")
    if parts.username or parts.password:
        raise serializers.ValidationError(
            "Put no credentials in the URL; give them in their own fields."
        )
    if parts.scheme == "http" and not settings.DEBUG and not settings.TESTING:
        raise serializers.ValidationError("Use https:// (credentials would travel in clear).")
    return value
