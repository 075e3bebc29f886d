"""CI cannot pass without its browser tests: under CI=true (which .ci/run sets) a browser test
that would skip for want of Chromium fails instead."""

from __future__ import annotations

import pytest

from tests import live


def test_a_missing_browser_fails_under_ci_and_skips_elsewhere(monkeypatch):
    monkeypatch.setattr(live, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        live.require_chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="missing"):
        live.require_chromium()


def test_the_ci_entry_point_runs_the_suite_as_ci():
    lines = [line.strip() for line in (live.ROOT / ".ci" / "run").read_text().splitlines()]
    assert "export CI=true" in lines
    assert lines.index("export CI=true") < lines.index("exec ./dev test")
