"""The answer gold sets in benchmarks/answers/ stay consistent: each set's own check_gold.py
(valid lines, gold.jsonl = DEV.jsonl + HELDOUT.jsonl, known slugs, every fact phrased as its
gold documents say it on word boundaries) passes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ANSWERS = Path(__file__).resolve().parent.parent / "benchmarks" / "answers"
SETS = sorted(p.parent.name for p in ANSWERS.glob("*/check_gold.py"))


def test_every_gold_set_has_its_check():
    assert SETS == ["encyclopedia", "northmill", "riverside", "tidewater", "windward"]


@pytest.mark.parametrize("name", SETS)
def test_a_gold_set_passes_its_own_consistency_check(name):
    run = subprocess.run(
        [sys.executable, str(ANSWERS / name / "check_gold.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
