"""Loading evaluation data: BEIR folders (corpus/queries/qrels) and gold-set JSONL files."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, kw_only=True)
class EvalQuery:
    qid: str
    text: str
    relevant: dict[str, int] = field(default_factory=dict)  # doc key -> grade
    expect_refusal: bool = False


@dataclass(frozen=True, kw_only=True)
class BeirDataset:
    name: str
    root: Path
    queries: list[EvalQuery]

    def corpus(self) -> Iterator[dict]:
        """Corpus records {_id, title, text}, streamed."""
        with (self.root / "corpus.jsonl").open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    yield json.loads(line)

    def corpus_size(self) -> int:
        with (self.root / "corpus.jsonl").open(encoding="utf-8") as handle:
            return sum(1 for line in handle if line.strip())


def load_beir(root: Path, *, split: str = "test") -> BeirDataset:
    """A BEIR folder: queries of `split` that have judgements, with their relevant doc ids."""
    root = Path(root)
    qrels_path = root / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        raise FileNotFoundError(f"no qrels for split {split!r}: {qrels_path}")
    relevant: dict[str, dict[str, int]] = {}
    with qrels_path.open(encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        for row in reader:
            if not row or row[0] == "query-id":
                continue
            qid, doc_id, grade = row[0], row[1], int(row[2])
            if grade > 0:
                relevant.setdefault(qid, {})[doc_id] = grade
    texts: dict[str, str] = {}
    with (root / "queries.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                texts[str(record["_id"])] = record["text"]
    queries = [
        EvalQuery(qid=qid, text=texts[qid], relevant=docs)
        for qid, docs in relevant.items()
        if qid in texts
    ]
    return BeirDataset(name=root.name, root=root, queries=queries)


def load_goldset(path: Path) -> list[EvalQuery]:
    """Gold-set lines {"q", "slugs" | "doc_ids", "expect_refusal"?}; doc keys are slugs or ids."""
    queries = []
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            record = json.loads(line)
            keys = [str(s) for s in record.get("slugs", [])] + [
                f"id:{d}" for d in record.get("doc_ids", [])
            ]
            queries.append(
                EvalQuery(
                    qid=str(record.get("id", number)),
                    text=record["q"],
                    relevant={key: 1 for key in keys},
                    expect_refusal=bool(record.get("expect_refusal", False)),
                )
            )
    return queries
