"""Precision and recall of the conflicts detector on a labelled set of passage pairs.

    .venv/bin/python benchmarks/conflicts_bench.py [benchmarks/conflicts/pairs.jsonl] [-v]

Each line of the set is a pair: `a` a passage of an accepted record (under `a_section`), `b`
one of another document, `label` true when they state different values for the same
subject (or the opposite yes/no rule). Positives and three kinds of negatives (different
subjects with different values, the same subject and value in other words, the same number
about another thing) were written for this set, in the style of several domains. Each
passage is split into units as a chunk is (`chat.conflicts.detect.passages`); a pair is
detected when any unit of `a` conflicts with any unit of `b`. No database, no embedder.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
django.setup()  # the value model reads through the answer engine, which imports kb's models

from chat.conflicts.detect import conflicts, passages  # noqa: E402

DEFAULT = ROOT / "benchmarks" / "conflicts" / "pairs.jsonl"


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    paths = [a for a in argv if not a.startswith("-")]
    path = Path(paths[0]) if paths else DEFAULT
    pairs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    tp = fp = fn = tn = 0
    for pair in pairs:
        record = passages(pair["a"], document_id=1, section=pair.get("a_section", ""))
        other = passages(pair["b"], document_id=2, section=pair.get("b_section", ""))
        found = conflicts(record, other)
        hit = bool(found)
        if hit and pair["label"]:
            tp += 1
        elif hit:
            fp += 1
        elif pair["label"]:
            fn += 1
        else:
            tn += 1
        wrong = hit != pair["label"]
        if verbose or wrong:
            what = (
                f"{found[0].record_value!r} vs {found[0].other_value!r} ({found[0].kind}, "
                f"subject {found[0].subject})"
                if found
                else "-"
            )
            mark = "WRONG" if wrong else "ok"
            print(f"{mark:5} {pair['id']} label={pair['label']} {pair['kind']}: {what}")
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    positives = sum(1 for p in pairs if p["label"])
    print(
        f"pairs {len(pairs)} (positives {positives}, negatives {len(pairs) - positives}): "
        f"tp {tp} fp {fp} fn {fn} tn {tn}; precision {precision:.3f}, recall {recall:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
