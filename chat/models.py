"""Chat: conversations and their messages, the chat log, and the content-gap rollup."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ConversationSource(models.TextChoices):
    BROWSER = "browser", "Browser"
    API = "api", "API"


class Conversation(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations"
    )
    title = models.CharField(max_length=200, blank=True, default="")
    # Where the conversation started: the chat page lists browser ones only, so scripts
    # calling the API do not flood a person's sidebar.
    source = models.CharField(
        max_length=10, choices=ConversationSource.choices, default=ConversationSource.BROWSER
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        indexes = [models.Index(fields=["user", "-updated_at"], name="chat_conv_user_updated")]

    def __str__(self) -> str:
        return self.title or f"Conversation {self.pk}"


class MessageRole(models.TextChoices):
    USER = "user", "User"
    ASSISTANT = "assistant", "Assistant"


class Message(models.Model):
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages"
    )
    role = models.CharField(max_length=10, choices=MessageRole.choices)
    content = models.TextField()
    citations = models.JSONField(default=list, blank=True)
    refusal_reason = models.CharField(max_length=40, blank=True, default="")
    meta = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["conversation_id", "created_at", "id"]

    def __str__(self) -> str:
        return f"{self.role}: {self.content[:60]}"


class ChatLog(models.Model):
    """One row per chat turn, for operators; written best-effort (never breaks the user path)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="chat_logs",
    )
    question = models.TextField()
    answer = models.TextField(blank=True, default="")
    provider = models.CharField(max_length=40, blank=True, default="")
    model = models.CharField(max_length=200, blank=True, default="")
    latency_ms = models.PositiveIntegerField(default=0)
    chunk_ids = models.JSONField(default=list, blank=True)
    refusal_reason = models.CharField(max_length=40, blank=True, default="")
    project_keys = models.JSONField(default=list, blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["-at"], name="chat_log_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.question[:60]}"


class ContentGap(models.Model):
    """A question the knowledge base could not answer, rolled up per project and wording."""

    project_key = models.CharField(max_length=63, blank=True, default="")
    normalised_question = models.CharField(max_length=1000)
    example_question = models.TextField()
    count = models.PositiveIntegerField(default=1)
    first_seen = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField(auto_now=True)
    resolved = models.BooleanField(default=False)

    class Meta:
        ordering = ["-count", "-last_seen"]
        constraints = [
            models.UniqueConstraint(
                fields=["project_key", "normalised_question"], name="chat_gap_unique_question"
            )
        ]

    def __str__(self) -> str:
        return f"{self.project_key or '*'}: {self.normalised_question} ({self.count})"


class FeedbackRating(models.TextChoices):
    UP = "up", "Helpful"
    DOWN = "down", "Not helpful"


class FeedbackReason(models.TextChoices):
    """Why an answer was not helpful; the order here is the order shown and stored."""

    OUTDATED = "outdated", "Outdated"
    WRONG_SOURCE = "wrong_source", "Wrong source"
    MISSING = "missing", "Missing information"
    UNCLEAR = "unclear", "Unclear"
    # names the document (Feedback.suggested): the reader's own pick among what they can read
    SHOULD_HAVE_CITED = "should_have_cited", "Should have cited another document"


class Feedback(models.Model):
    """A reader's verdict on one answer; thumbs-down ones queue for the projects' editors."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="feedback")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_feedback"
    )
    rating = models.CharField(max_length=4, choices=FeedbackRating.choices)
    # FeedbackReason values, thumbs-down only (chat.feedback.feedback_reasons_clean is the
    # rule). A reason that names something (e.g. the document it should have cited) gets a
    # column of its own beside this list.
    reasons = models.JSONField(default=list, blank=True)
    # the document the reader says it should have cited (or that replaces an outdated one)
    suggested = models.ForeignKey(
        "kb.Document", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    comment = models.TextField(blank=True, default="")
    # Copied from the answer when given, so the editors' queue filters without parsing
    # message JSON: the projects searched and the documents cited.
    project_keys = models.JSONField(default=list, blank=True)
    document_ids = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    resolution_note = models.TextField(
        blank=True, default="", help_text="What the editor who resolved it did about it."
    )
    # Filled by an editor turning the thumbs-down into a gold question for the answer harness.
    gold_facts = models.TextField(
        blank=True,
        default="",
        help_text="One fact the right answer must state per line; alternatives separated by |.",
    )
    gold_slugs = models.TextField(
        blank=True, default="", help_text="Slugs of the documents that answer it, one per line."
    )
    gold_refuse = models.BooleanField(
        default=False, help_text="The right answer is a refusal (nothing documents it)."
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "feedback"
        constraints = [
            models.UniqueConstraint(fields=["message", "user"], name="chat_feedback_one_per_user")
        ]
        indexes = [models.Index(fields=["rating", "resolved_at"], name="chat_feedback_queue")]

    def __str__(self) -> str:
        return f"{self.get_rating_display()}: {self.message.content[:60]}"

    @property
    def reason_labels(self) -> list[str]:
        labels = dict(FeedbackReason.choices)
        return [labels.get(value, value) for value in self.reasons or []]


class CitedDocument(models.Model):
    """One citation of a stored answer as a row, written with the answer: the drift job finds
    the answers citing a document through an index instead of reading every message's JSON."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="cited_documents")
    document = models.ForeignKey(
        "kb.Document", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    version = models.PositiveIntegerField(null=True, blank=True)
    chunk_id = models.BigIntegerField(null=True, blank=True)
    # kb.versions.chunk_hash of the passage as read ("" when not known): the passage has
    # changed once no chunk of the document's current text has this hash
    chunk_hash = models.CharField(max_length=64, blank=True, default="")
    # the document's canonical status and type as the answer read them ("" for none)
    status = models.CharField(max_length=20, blank=True, default="")
    canonical_type = models.CharField(max_length=30, blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=["document", "message"], name="chat_cited_document")]

    def __str__(self) -> str:
        return f"message {self.message_id} cites document {self.document_id}"


class DriftKind(models.TextChoices):
    """What happened to a cited document since the answer read it."""

    SUPERSEDED = "superseded", "superseded"
    DEPRECATED = "deprecated", "deprecated"
    ARCHIVED = "archived", "archived"
    DELETED = "deleted", "deleted"
    CHANGED = "changed", "changed"
    REJECTED = "rejected", "rejected"  # re-typed as a rejected approach


class AnswerDrift(models.Model):
    """A stored answer whose cited document changed since: the mark on the answer and its
    asker's notification (unique per answer, document, kind and successor, so the job is
    idempotent and a record superseded again by another record is a new mark)."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="drifts")
    # the asker (the conversation's owner), kept here so the bell counts with one index
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="answer_drifts"
    )
    document = models.ForeignKey("kb.Document", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=12, choices=DriftKind.choices)
    successor = models.ForeignKey(
        "kb.Document", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # the successor's id as marked (0: none), kept when the successor itself goes: the
    # mark's identity, which SET_NULL on `successor` would otherwise merge with another's
    successor_key = models.BigIntegerField(default=0)
    detail = models.TextField(blank=True, default="")  # the editor's reason, when one was given
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["message", "document", "kind", "successor_key"],
                name="chat_drift_one_per_change",
            )
        ]
        indexes = [
            models.Index(
                fields=["user"],
                condition=models.Q(read_at__isnull=True),
                name="chat_drift_unread",
            ),
            models.Index(fields=["user", "-created_at"], name="chat_drift_user_created"),
        ]

    def __str__(self) -> str:
        return f"answer {self.message_id}: document {self.document_id} {self.kind}"


class ConflictState(models.TextChoices):
    OPEN = "open", "Open"
    DEPRECATED = "deprecated", "Resolved: the other document deprecated"
    ARCHIVED = "archived", "Resolved: the other document archived"
    DISMISSED = "dismissed", "Dismissed"
    GONE = "gone", "No longer stated"  # a later check found the two agree, or one went stale


class Conflict(models.Model):
    """Two passages of one project stating different values for the same subject, one in an
    accepted canonical record (chat.conflicts). One row per (record, other, passages): a
    dismissed or resolved pair is remembered, so the same pair is not raised again."""

    project = models.ForeignKey("access.Project", on_delete=models.CASCADE, related_name="+")
    record = models.ForeignKey("kb.Document", on_delete=models.CASCADE, related_name="+")
    other = models.ForeignKey("kb.Document", on_delete=models.CASCADE, related_name="+")
    record_passage = models.TextField()
    other_passage = models.TextField()
    record_value = models.CharField(max_length=200, blank=True, default="")
    other_value = models.CharField(max_length=200, blank=True, default="")
    kind = models.CharField(max_length=20)  # the values' kind, or "rule" (yes/no)
    subject = models.FloatField(default=0.0)  # how alike the two subjects are (0..1)
    # the pair's identity: a hash of the two passages as stated
    key = models.CharField(max_length=64)
    state = models.CharField(
        max_length=12, choices=ConflictState.choices, default=ConflictState.OPEN
    )
    reason = models.TextField(blank=True, default="")  # why it was dismissed or resolved
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["record", "other", "key"], name="chat_conflict_one_per_pair"
            )
        ]
        indexes = [
            models.Index(fields=["project", "state"], name="chat_conflict_project_state"),
            models.Index(fields=["other", "state"], name="chat_conflict_other_state"),
        ]

    def __str__(self) -> str:
        return f"{self.record_value or 'rule'} / {self.other_value or 'opposite rule'}"


class ProposalKind(models.TextChoices):
    RAISE_PRIORITY = "raise_priority", "Raise the document's priority"
    LOWER_PRIORITY = "lower_priority", "Lower the document's priority"
    DEPRECATE = "deprecate", "Mark the document stale (deprecate)"
    SUPERSEDE = "supersede", "Link a successor (supersede)"
    CONTENT_GAP = "content_gap", "Open a content gap"


class ProposalState(models.TextChoices):
    OPEN = "open", "Open"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class Proposal(models.Model):
    """A change a thumbs-down proposes to a project's editors (chat.proposals), with its
    evidence: the question, the answer, the documents cited and the one suggested. Accepting
    it goes through the curation services (audited); one row per (feedback, kind, document)."""

    project = models.ForeignKey("access.Project", on_delete=models.CASCADE, related_name="+")
    feedback = models.ForeignKey(
        Feedback, on_delete=models.SET_NULL, null=True, blank=True, related_name="proposals"
    )
    kind = models.CharField(max_length=20, choices=ProposalKind.choices)
    # what the change is made to (none for a content gap) and, to supersede, its successor
    document = models.ForeignKey(
        "kb.Document", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    successor = models.ForeignKey(
        "kb.Document", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    # the evidence, as it was when the reader gave it
    question = models.TextField()
    answer = models.TextField(blank=True, default="")
    cited_document_ids = models.JSONField(default=list, blank=True)
    suggested = models.ForeignKey(
        "kb.Document", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    comment = models.TextField(blank=True, default="")
    state = models.CharField(
        max_length=10, choices=ProposalState.choices, default=ProposalState.OPEN
    )
    reason = models.TextField(blank=True, default="")  # why it was rejected
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["feedback", "kind", "project", "document"],
                nulls_distinct=False,
                name="chat_proposal_one_per_change",
            )
        ]
        indexes = [
            models.Index(fields=["project", "state"], name="chat_proposal_project_state"),
            models.Index(fields=["document", "state"], name="chat_proposal_document_state"),
        ]

    def __str__(self) -> str:
        target = self.document.title if self.document_id and self.document else self.question
        return f"{self.get_kind_display()}: {target[:60]}"


class HealthCheck(models.Model):
    """The last knowledge-health check of a project (chat.health): per accepted record, the
    question generated from its own fact and what the chat answered. One row per project."""

    project = models.OneToOneField("access.Project", on_delete=models.CASCADE, related_name="+")
    checked_at = models.DateTimeField()
    records = models.PositiveIntegerField(default=0)  # how many accepted records were asked
    results = models.JSONField(default=list, blank=True)  # chat.health.FactResult dicts

    def __str__(self) -> str:
        return f"health of {self.project_id} at {self.checked_at:%Y-%m-%d %H:%M}"
