"""Git repository (docs-as-code): a URL or a local path, a branch, path globs.

The `git` binary keeps a bare clone per source under SOURCES_CACHE_DIR; each sync fetches
the branch, and the cursor is the commit it synced. The changes are `git diff-tree -M`
between the two commits (adds, changes, renames, deletes); the first sync, or one whose old
commit a force-push removed, lists the whole tree. Files are read at the commit with one
`git cat-file --batch` process; each document links to its file at that commit.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from django.conf import settings
from rest_framework import serializers

from sources.connectors.base import (
    Change,
    ChangeKind,
    ChangeSet,
    ConnectorError,
    ConnectorKind,
    Fetched,
    FetchError,
    GlobsField,
    local_path_allowed,
    wanted,
    web_url_check,
)

GIT = shutil.which("git") or "git"
FETCH_TIMEOUT_SECONDS = 600  # a first clone of a big repository over a slow link
COMMAND_TIMEOUT_SECONDS = 120
# git reads only these transports: `ext::` and friends would run commands on the server
PROTOCOLS = ["-c", "protocol.allow=never", "-c", "protocol.https.allow=always"]
LOCAL_PROTOCOLS = ["-c", "protocol.file.allow=always"]
INSECURE_PROTOCOLS = ["-c", "protocol.http.allow=always"]


class GitSettings(serializers.Serializer):
    url = serializers.CharField(
        max_length=500,
        label="URL or path",
        help_text="https:// URL of the repository, or an absolute path on the server.",
    )
    branch = serializers.CharField(max_length=200, default="main", required=False)
    paths = GlobsField()
    token = serializers.CharField(
        max_length=500,
        required=False,
        allow_blank=True,
        help_text="An access token for a private repository over HTTPS (kept encrypted).",
    )

    def validate_url(self, value: str) -> str:
        value = value.strip()
        if value.startswith(("https://", "http://")):
            return web_url_check(value, what="repository")
        if "://" in value or value.startswith("-") or "::" in value:
            raise serializers.ValidationError("Give an https:// URL or an absolute local path.")
        return str(local_path_allowed(value))

    def validate_branch(self, value: str) -> str:
        value = value.strip()
        if (
            not value
            or value.startswith("-")
            or ".." in value
            or any(c in value for c in " ~^:?*[\\")
        ):
            raise serializers.ValidationError("Not a branch name.")
        return value


def _git_env(token: str) -> dict[str, str]:
    env = {
        "PATH": os.defpath,
        "HOME": str(settings.SOURCES_CACHE_DIR),
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "LC_ALL": "C",
    }
    if token:
        # in the environment, not argv (which `ps` shows) nor the URL (which git may print)
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        env |= {
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "http.extraHeader",
            "GIT_CONFIG_VALUE_0": f"Authorization: Basic {basic}",
        }
    return env


def _explain(stderr: str, *, url: str, branch: str) -> str:
    """git's complaint as a message an editor can act on (no secret: none is in argv)."""
    text = stderr.lower()
    if any(
        sign in text for sign in ("authentication failed", "could not read username", "403", "401")
    ):
        return f"The repository refused the credentials: check the token ({url})."
    if "couldn't find remote ref" in text or "unknown revision" in text:
        return f"The repository has no branch {branch!r}."
    if (
        "not found" in text
        or "does not appear to be a git repository" in text
        or "does not exist" in text
    ):
        return f"No Git repository at {url}."
    if "could not resolve host" in text or "failed to connect" in text or "timed out" in text:
        return f"The repository's host cannot be reached ({url})."
    last = stderr.strip().splitlines()[-1:] or ["no message"]
    return f"git failed: {last[0][:300]}"


def clone_path(cache_key: str) -> Path:
    """Where a source's bare clone lives."""
    return Path(settings.SOURCES_CACHE_DIR) / "git" / f"{cache_key}.git"


def clone_forget(cache_key: str) -> None:
    """Remove a deleted source's clone."""
    shutil.rmtree(clone_path(cache_key), ignore_errors=True)


class GitConnector:
    def __init__(self, config: dict[str, Any], cache_key: str) -> None:
        self.url: str = config["url"]
        self.branch: str = config.get("branch") or "main"
        self.globs: list[str] = list(config.get("paths") or [])
        self.env = _git_env(config.get("token") or "")
        self.repo = clone_path(cache_key)
        self._batch: subprocess.Popen[bytes] | None = None
        protocols = list(PROTOCOLS)
        if not self.url.startswith(("https://", "http://")):
            protocols += LOCAL_PROTOCOLS
        elif self.url.startswith("http://"):
            protocols += INSECURE_PROTOCOLS
        self.protocols = protocols

    # --- git ------------------------------------------------------------------------------

    def _git(self, *args: str, timeout: float = COMMAND_TIMEOUT_SECONDS) -> bytes:
        try:
            done = subprocess.run(
                [GIT, *self.protocols, "-C", str(self.repo), *args],
                env=self.env,
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise ConnectorError(f"git {args[0]} took longer than {timeout:.0f} s.") from exc
        except FileNotFoundError as exc:
            raise ConnectorError("The server has no `git` program (install git).") from exc
        if done.returncode != 0:
            raise ConnectorError(
                _explain(done.stderr.decode("utf-8", "replace"), url=self.url, branch=self.branch)
            )
        return done.stdout

    def _fetch_branch(self) -> str:
        if not (self.repo / "HEAD").exists():
            self.repo.mkdir(parents=True, exist_ok=True)
            self._git("init", "--bare", "--quiet")
        ref = f"refs/heads/{self.branch}"
        self._git(
            "fetch", "--quiet", "--no-tags", "--force", "--", self.url, f"+{ref}:{ref}",
            timeout=FETCH_TIMEOUT_SECONDS,
        )  # fmt: skip
        return self._git("rev-parse", "--verify", f"{ref}^{{commit}}").decode().strip()

    def _has_commit(self, sha: str) -> bool:
        if not sha or not all(c in "0123456789abcdef" for c in sha):
            return False
        try:
            self._git("cat-file", "-e", f"{sha}^{{commit}}")
        except ConnectorError:
            return False
        return True

    # --- the connector --------------------------------------------------------------------

    def changes(self, cursor: str) -> ChangeSet:
        head = self._fetch_branch()
        if cursor == head:
            return ChangeSet(changes=[], cursor=head)
        if not self._has_commit(cursor):
            listed = self._git("ls-tree", "-r", "-z", "--name-only", head).decode(
                "utf-8", "replace"
            )
            changes = [
                Change(kind=ChangeKind.UPSERT, external_id=path, path=path)
                for path in listed.split("\0")
                if path and wanted(path, self.globs)
            ]
            return ChangeSet(changes=changes, cursor=head, full=True)
        raw = self._git(
            "diff-tree", "-r", "-z", "-M", "--name-status", "--no-commit-id", cursor, head
        )
        return ChangeSet(changes=self._parse_diff(raw.decode("utf-8", "replace")), cursor=head)

    def _parse_diff(self, raw: str) -> list[Change]:
        fields = raw.split("\0")
        changes: list[Change] = []
        index = 0
        while index < len(fields) and fields[index]:
            status = fields[index]
            if status[0] in "RC":
                old, new = fields[index + 1], fields[index + 2]
                index += 3
                keep_old, keep_new = wanted(old, self.globs), wanted(new, self.globs)
                if status[0] == "R" and keep_old and keep_new:
                    changes.append(
                        Change(kind=ChangeKind.RENAME, external_id=new, path=new, previous_id=old)
                    )
                    continue
                if status[0] == "R" and keep_old:
                    changes.append(Change(kind=ChangeKind.DELETE, external_id=old, path=old))
                if keep_new:
                    changes.append(Change(kind=ChangeKind.UPSERT, external_id=new, path=new))
                continue
            path = fields[index + 1]
            index += 2
            if not wanted(path, self.globs):
                continue
            kind = ChangeKind.DELETE if status[0] == "D" else ChangeKind.UPSERT
            changes.append(Change(kind=kind, external_id=path, path=path))
        return changes

    def _batch_process(self) -> subprocess.Popen[bytes]:
        if self._batch is None:
            self._batch = subprocess.Popen(
                [GIT, *self.protocols, "-C", str(self.repo), "cat-file", "--batch"],
                env=self.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        return self._batch

    def fetch(self, change: Change, cursor: str) -> Fetched:
        process = self._batch_process()
        stdin, stdout = process.stdin, process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(f"{cursor}:{change.external_id}\n".encode())
        stdin.flush()
        header = stdout.readline().decode("utf-8", "replace").split()
        if len(header) != 3 or header[1] != "blob":
            raise FetchError(f"{change.external_id}: not in commit {cursor[:12]}")
        size = int(header[2])
        content = _read_exactly(stdout, size)
        stdout.read(1)  # the newline after the object
        return Fetched(
            content=content,
            name=change.path,
            metadata={"source": {"kind": "git", "revision": cursor, "path": change.path,
                                 "url": self.link(change.path, cursor)}},
        )  # fmt: skip

    def link(self, path: str, commit: str) -> str:
        """The file at the commit on the forge (GitHub, GitLab, Gitea all serve /blob/)."""
        if not self.url.startswith(("https://", "http://")):
            return ""
        base = self.url.rstrip("/").removesuffix(".git")
        return f"{base}/blob/{commit}/{quote(path)}"

    def close(self) -> None:
        if self._batch is not None:
            if self._batch.stdin is not None:
                self._batch.stdin.close()
            self._batch.wait(timeout=10)
            self._batch = None


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    parts: list[bytes] = []
    remaining = size
    while remaining > 0:
        part = stream.read(remaining)
        if not part:
            raise FetchError("git stopped while reading a file")
        parts.append(part)
        remaining -= len(part)
    return b"".join(parts)


KIND = ConnectorKind(
    name="git",
    label="Git repository",
    settings_serializer=GitSettings,
    build=GitConnector,
    secret_fields=("token",),
    forget=clone_forget,
)
