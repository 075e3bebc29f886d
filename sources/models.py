"""Sources: where a project's documents live upstream (a Git repository, a folder), how often
they are synced, and what the last sync did."""

from __future__ import annotations

from datetime import timedelta

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from kb.models import Document
from portal.access.models import AnyUser, Project

MIN_INTERVAL_MINUTES = 5
MAX_INTERVAL_MINUTES = 7 * 24 * 60


class SyncState(models.TextChoices):
    NEVER = "never", "Never run"
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    OK = "ok", "Synced"
    PARTIAL = "partial", "Synced with failures"
    FAILED = "failed", "Failed"


class SourceQuerySet(models.QuerySet["Source"]):
    def visible_to(self, user: AnyUser) -> SourceQuerySet:
        """The one visibility rule for sources: the editors of their project (and superusers)."""
        return self.filter(project__in=Project.objects.editable_by(user))


class Source(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="sources")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=20)  # a key of sources.connectors.KINDS
    # the kind's plain settings; its secret settings are in `secrets`, encrypted
    settings = models.JSONField(default=dict, blank=True)
    # {name: ciphertext} (portal.secrets): never sent back to a page or the API
    secrets = models.JSONField(default=dict, blank=True)
    interval_minutes = models.PositiveIntegerField(
        default=60,
        validators=[
            MinValueValidator(MIN_INTERVAL_MINUTES),
            MaxValueValidator(MAX_INTERVAL_MINUTES),
        ],
    )
    paused = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # sync state
    cursor = models.TextField(blank=True, default="")
    state = models.CharField(max_length=10, choices=SyncState.choices, default=SyncState.NEVER)
    next_run_at = models.DateTimeField(null=True, blank=True)
    last_started_at = models.DateTimeField(null=True, blank=True)
    last_run_at = models.DateTimeField(null=True, blank=True)
    last_added = models.PositiveIntegerField(default=0)
    last_changed = models.PositiveIntegerField(default=0)
    last_removed = models.PositiveIntegerField(default=0)
    last_failed = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True, default="")

    objects = SourceQuerySet.as_manager()

    class Meta:
        ordering = ["project_id", "name"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="source_unique_name"),
            models.CheckConstraint(
                condition=models.Q(interval_minutes__gte=MIN_INTERVAL_MINUTES)
                & models.Q(interval_minutes__lte=MAX_INTERVAL_MINUTES),
                name="source_interval_range",
            ),
        ]
        indexes = [models.Index(fields=["paused", "next_run_at"], name="source_due")]

    def __str__(self) -> str:
        return f"{self.project_id}/{self.name}"

    @property
    def interval(self) -> timedelta:
        return timedelta(minutes=self.interval_minutes)

    @property
    def path_prefix(self) -> str:
        """What the source_path of each of its documents starts with (unique in the project)."""
        return f"{self.kind}-{self.pk}/"


class SourceItem(models.Model):
    """One upstream item of a source and the document it became: the stable external id
    (a file's path, a page's id) is unique per source, so a retried sync never adds twice."""

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="items")
    external_id = models.CharField(max_length=1000)
    document = models.ForeignKey(
        Document, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "external_id"], name="sourceitem_unique_external_id"
            )
        ]

    def __str__(self) -> str:
        return f"{self.source_id}:{self.external_id}"
