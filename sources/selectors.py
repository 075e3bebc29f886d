"""Reads about sources, through the one visibility rule (`Source.objects.visible_to`: the
editors of the source's project)."""

from __future__ import annotations

from django.http import Http404

from portal.access.models import AnyUser, Project
from sources.connectors import KINDS
from sources.models import Source


def source_list(*, user: AnyUser, project: Project | None = None) -> list[Source]:
    """The sources the user manages (of one project when given), by project and name."""
    sources = Source.objects.visible_to(user).select_related("project")
    if project is not None:
        sources = sources.filter(project=project)
    return list(sources.order_by("project__key", "name"))


def source_get_visible(user: AnyUser, source_id: int) -> Source:
    """The source if the user edits its project; Http404 otherwise (one body, no oracle)."""
    source = Source.objects.visible_to(user).select_related("project").filter(pk=source_id).first()
    if source is None:
        raise Http404
    return source


def source_secrets_set(source: Source) -> list[str]:
    """The names of the secret settings that hold a value (the values are never read back)."""
    kind = KINDS.get(source.kind)
    names = kind.secret_fields if kind is not None else ()
    return [name for name in names if source.secrets.get(name)]
