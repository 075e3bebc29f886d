"""A folder on the server (a mounted share, a synced bucket): an absolute path inside the
operator's SOURCES_LOCAL_ROOTS, and path globs.

The cursor is the folder's listing as of the last sync: {path: [mtime_ns, size, sha256]}.
A file whose modification time and size are unchanged is not read again; one whose content
hash moved to another path is a rename.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from rest_framework import serializers

from sources.connectors.base import (
    Change,
    ChangeSet,
    ConnectorError,
    ConnectorKind,
    Fetched,
    FetchError,
    GlobsField,
    listing_changes,
    local_path_allowed,
    wanted,
)

Listing = dict[str, list[Any]]  # path -> [mtime_ns, size, sha256]


class FolderSettings(serializers.Serializer):
    path = serializers.CharField(
        max_length=500, label="Folder", help_text="An absolute folder path on the server."
    )
    paths = GlobsField()

    def validate_path(self, value: str) -> str:
        return str(local_path_allowed(value.strip()))


def _hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class FolderConnector:
    def __init__(self, config: dict[str, Any], cache_key: str) -> None:
        self.root = Path(config["path"])
        self.globs: list[str] = list(config.get("paths") or [])

    def _listing(self, old: Listing) -> Listing:
        if not self.root.is_dir():
            raise ConnectorError(f"The folder {self.root} does not exist or is not a folder.")
        listing: Listing = {}
        for folder, dirs, files in os.walk(self.root):  # symlinks are not followed
            dirs.sort()
            for name in sorted(files):
                full = Path(folder) / name
                relative = full.relative_to(self.root).as_posix()
                if full.is_symlink() or not wanted(relative, self.globs):
                    continue
                try:
                    stat = full.stat()
                    known = old.get(relative)
                    if known and known[0] == stat.st_mtime_ns and known[1] == stat.st_size:
                        digest = known[2]
                    else:
                        digest = _hash(full)
                except OSError:
                    continue  # gone or unreadable since the walk: the next sync sees it
                listing[relative] = [stat.st_mtime_ns, stat.st_size, digest]
        return listing

    def changes(self, cursor: str) -> ChangeSet:
        old: Listing = json.loads(cursor)["files"] if cursor else {}
        new = self._listing(old)
        changes = listing_changes(
            {path: entry[2] for path, entry in old.items()},
            {path: entry[2] for path, entry in new.items()},
        )
        return ChangeSet(
            changes=changes, cursor=json.dumps({"files": new}, sort_keys=True), full=not cursor
        )

    def fetch(self, change: Change, cursor: str) -> Fetched:
        path = self.root / change.external_id
        try:
            content = path.read_bytes()
        except OSError as exc:
            raise FetchError(f"{change.external_id}: {exc.strerror or 'cannot be read'}") from exc
        return Fetched(
            content=content,
            name=change.path,
            metadata={"source": {"kind": "folder", "path": change.path, "url": ""}},
        )

    def close(self) -> None:
        return None


KIND = ConnectorKind(
    name="folder",
    label="Folder on the server",
    settings_serializer=FolderSettings,
    build=FolderConnector,
)
