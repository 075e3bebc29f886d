"""Errors raised by the retrieval pipeline."""

from __future__ import annotations


class RetrievalError(Exception):
    """Base class of retrieval failures the caller may want to handle."""


class InvalidSearchRequest(RetrievalError, ValueError):
    """The request cannot be served as asked (unknown mode, bad filter value, empty query)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class KeywordArmError(RetrievalError):
    """The full-text arm failed (e.g. an unknown text-search configuration)."""
