"""The kinds of source: one module each (see `base.py` for the interface)."""

from __future__ import annotations

from sources.connectors import confluence, folder, git, s3
from sources.connectors.base import ConnectorKind

KINDS: dict[str, ConnectorKind] = {
    kind.name: kind for kind in (git.KIND, folder.KIND, s3.KIND, confluence.KIND)
}
