"""The dependency arrows, read from the source: portal <- kb <- canonical <- chat, and
integrations / privacy on top of all of them.

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
    # chat shows curated state (why a cited record was deprecated, what replaced it)
    "chat": {"portal", "kb", "canonical"},
    # the integration surfaces sit on top: they use every app, nothing uses them
    "integrations": {"portal", "kb", "canonical", "chat"},
    "privacy": {"portal", "kb", "canonical", "chat"},
    # connectors feed kb's write path; nothing below imports them
    "sources": {"portal", "kb"},
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


PROJECT_PACKAGES = (*ALLOWED, "tests", "benchmarks")


def private_imports(path: Path) -> list[str]:
    """`from <project module> import _name` in `path`: a private name crossing a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level != 0 or not node.module:
            continue
        if node.module.split(".")[0] not in PROJECT_PACKAGES:
            continue
        for alias in node.names:
            if alias.name.startswith("_") and not alias.name.startswith("__"):
                found.append(f"{path.relative_to(ROOT)} imports {node.module}.{alias.name}")
    return found


def test_no_module_imports_another_modules_private_names():
    found = []
    for package in PROJECT_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found.extend(private_imports(path))
    assert found == []


def test_the_private_name_check_sees_them(tmp_path):
    (tmp_path / "m.py").write_text(
        "from kb.retrieval.arms import _tables, Scope\nfrom os import _exit\n"
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert private_imports(tmp_path / "m.py") == ["m.py imports kb.retrieval.arms._tables"]
    finally:
        ROOT = saved
