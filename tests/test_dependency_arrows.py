"""The dependency arrows, read from the source: portal <- kb <- canonical, and kb <- chat.

Every import statement counts (top level, in functions, under TYPE_CHECKING), migrations too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# package -> the project packages it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "portal": set(),
    "kb": {"portal"},
    "canonical": {"portal", "kb"},
    "chat": {"portal", "kb"},
}


def imported_packages(path: Path) -> set[str]:
    """Top-level package names of every module `path` imports (relative imports excluded)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def violations(package: str) -> list[str]:
    forbidden = set(ALLOWED) - ALLOWED[package] - {package}
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for name in sorted(imported_packages(path) & forbidden):
            found.append(f"{path.relative_to(ROOT)} imports {name}")
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_the_arrows_allow(package):
    assert violations(package) == []


def test_the_check_sees_imports_in_functions(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from canonical.services import x\n    import chat.models\n")
    assert imported_packages(module) == {"canonical", "chat"}
