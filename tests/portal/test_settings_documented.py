"""Every environment variable the portal reads is read in portal/settings.py and documented
in the README's configuration table; no other module reads the environment for a setting."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
READ = re.compile(r"""env_\w+\(\s*["']([A-Z][A-Z0-9_]+)["']""")


def settings_variables() -> set[str]:
    return set(READ.findall((ROOT / "portal" / "settings.py").read_text(encoding="utf-8")))


def test_every_setting_is_documented_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]{3,})`", readme))
    missing = sorted(settings_variables() - documented)
    assert missing == [], f"settings read but not in the README: {missing}"


def test_no_other_module_reads_the_environment_for_a_setting():
    readers = []
    for package in ("portal", "kb", "canonical", "chat", "integrations", "privacy", "sources"):
        for path in (ROOT / package).rglob("*.py"):
            if path.name == "settings.py" or "migrations" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            for name in re.findall(r"os\.environ(?:\.get)?\(?\[?\s*[\"']([A-Z_]+)", text):
                readers.append(f"{path.relative_to(ROOT)}: {name}")
    assert readers == []
