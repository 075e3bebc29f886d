"""Fixtures for sources: real Git repositories and folders made in the test."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from portal.access.services import project_ensure


class Repo:
    """A real Git repository in a temporary folder, committed with the `git` binary."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True)
        self.git("init", "--quiet", "--initial-branch=main")

    def git(self, *args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(self.path), *args],
            check=True,
            capture_output=True,
            text=True,
            env={
                "PATH": "/usr/bin:/bin",
                "HOME": str(self.path),
                "GIT_AUTHOR_NAME": "Docs",
                "GIT_AUTHOR_EMAIL": "docs@example.com",
                "GIT_COMMITTER_NAME": "Docs",
                "GIT_COMMITTER_EMAIL": "docs@example.com",
            },
        ).stdout.strip()

    def write(self, name: str, text: str) -> None:
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    def move(self, old: str, new: str) -> None:
        (self.path / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", old, new)

    def commit(self, message: str = "change") -> str:
        self.git("add", "--all")
        self.git("commit", "--quiet", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")


@pytest.fixture
def local_roots(tmp_path, settings):
    settings.SOURCES_LOCAL_ROOTS = [str(tmp_path / "upstream")]
    settings.SOURCES_CACHE_DIR = tmp_path / "cache"
    (tmp_path / "upstream").mkdir()
    return tmp_path / "upstream"


@pytest.fixture
def repo(local_roots) -> Repo:
    return Repo(local_roots / "handbook")


@pytest.fixture
def project(alpha):
    return project_ensure(key="docs-as-code")
