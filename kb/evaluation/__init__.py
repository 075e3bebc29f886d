"""Retrieval evaluation: BEIR datasets and gold sets, ir-measures metrics, per-mode runs."""
