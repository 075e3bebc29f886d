"""Curation models: the append-only audit trail and the admin's view of documents as records."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from kb.curation import ERASED_ACTOR, ChangeSource
from kb.models import Document


class AuditTrailError(RuntimeError):
    """Raised when code tries to rewrite or erase the audit trail."""


__all__ = ["ERASED_ACTOR", "AuditTrailError", "CanonicalRecord", "RecordChange"]


class RecordChangeQuerySet(models.QuerySet["RecordChange"]):
    def anonymise_actor(self) -> int:
        """The one permitted rewrite: erasure replaces the author by ERASED_ACTOR; what changed,
        when and why stay as they were."""
        return super().update(actor=None, actor_name=ERASED_ACTOR)

    def update(self, **kwargs: Any) -> int:
        raise AuditTrailError("The record history is append-only: rows cannot be updated.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AuditTrailError("The record history is append-only: rows cannot be deleted.")


class RecordChange(models.Model):
    """One change to a canonical record: who, when, which field, from what to what, why."""

    # CASCADE only on a hard delete of the document (soft delete keeps the history).
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="changes")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="record_changes",
    )
    actor_name = models.CharField(max_length=150, blank=True, default="")
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    field = models.CharField(max_length=50)
    from_value = models.TextField(blank=True, default="")
    to_value = models.TextField(blank=True, default="")
    reason = models.TextField(blank=True, default="")
    source = models.CharField(max_length=10, choices=ChangeSource.choices)

    objects = RecordChangeQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["document", "-at"], name="canonical_change_doc_at")]

    def __str__(self) -> str:
        return f"{self.document_id} {self.field}: {self.from_value!r} -> {self.to_value!r}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AuditTrailError("The record history is append-only: rows cannot be changed.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AuditTrailError("The record history is append-only: rows cannot be deleted.")


class CanonicalRecord(Document):
    """kb.Document seen through the curation console (no table of its own)."""

    class Meta:
        proxy = True
        verbose_name = "canonical record"
        verbose_name_plural = "canonical records"

    def __str__(self) -> str:
        return f"{self.title} ({self.slug})" if self.title else self.slug
