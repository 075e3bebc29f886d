"""The Groundwork MCP server: five tools over the caller's view of the knowledge base.

The caller (an authenticated user of the current tenant) comes from `CALLER`, set by the
transport (the HTTP view after DRF token authentication, or the stdio command). Tool bodies
touch the database, so they run through `sync_to_async` (thread-sensitive: in the thread
that holds the tenant's connection and schema).
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Annotated, Any, TypeVar

from asgiref.sync import sync_to_async
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from integrations import tools
from portal.access.models import AnyUser

CALLER: ContextVar[AnyUser] = ContextVar("groundwork_mcp_caller")

INSTRUCTIONS = (
    "Groundwork answers from a company's knowledge base. Use `search` to find documents, "
    "`ask` for a grounded answer with numbered citations (or an honest refusal), "
    "`get_document` to read one document (at a citation's `version` to read it as the answer "
    "did), `list_projects` for the projects you can read, "
    "and `record_status` (editors) for a record's curation state and history. "
    "Anything you may not see answers 'Not found.'"
)

T = TypeVar("T")


async def _as_caller(function: Callable[..., T], **arguments: Any) -> T:
    """Run a tool body for the current caller; a ToolFailure becomes the tool's error text."""
    try:
        user = CALLER.get()
    except LookupError as exc:  # a transport that forgot to authenticate: refuse, never guess
        raise ToolError("Not authenticated.") from exc
    try:
        return await sync_to_async(function, thread_sensitive=True)(user, **arguments)
    except tools.ToolFailure as exc:
        raise ToolError(str(exc)) from exc


mcp = MCPServer("groundwork", instructions=INSTRUCTIONS, version="1.0")


@mcp.tool()
async def search(
    query: Annotated[str, Field(description="What to look for, in natural language.")],
    filters: Annotated[
        dict[str, Any] | None,
        Field(
            description="Optional filters as in POST /api/kb/search: project_keys, tags, "
            "source_types, canonical_types, canonical_statuses, doc_ids, date_from, date_to."
        ),
    ] = None,
    top: Annotated[int | None, Field(description="How many hits (default 8).")] = None,
) -> dict[str, Any]:
    """Search the documents you can see: hits with title, status, snippet and preview link."""
    return await _as_caller(tools.search_tool, query=query, filters=filters, top=top)


@mcp.tool()
async def ask(
    question: Annotated[str, Field(description="The question to answer.")],
    project_key: Annotated[str | None, Field(description="Answer only from this project.")] = None,
    filters: Annotated[
        dict[str, Any] | None,
        Field(description="Optional filters as in POST /api/kb/chat (same names as search)."),
    ] = None,
) -> dict[str, Any]:
    """A grounded answer with numbered citations, or a refusal with its reason."""
    return await _as_caller(
        tools.ask_tool, question=question, project_key=project_key, filters=filters
    )


@mcp.tool()
async def get_document(
    document_id: Annotated[int, Field(description="The document id (from search or ask).")],
    version: Annotated[
        int | None,
        Field(
            description="A version number: the text as that version had it (a citation's "
            "`version` from ask; editors may read any version). Default: the current one."
        ),
    ] = None,
) -> dict[str, Any]:
    """A document's text (and sanitised HTML), its status and its supersede chain."""
    return await _as_caller(tools.get_document_tool, document_id=document_id, version=version)


@mcp.tool()
async def list_projects() -> dict[str, Any]:
    """The projects you can read, with your role in each."""
    return await _as_caller(tools.list_projects_tool)


@mcp.tool()
async def record_status(
    document_id: Annotated[int, Field(description="The record's document id.")],
) -> dict[str, Any]:
    """For editors: a record's curation state (status, type, priority) and its audit trail."""
    return await _as_caller(tools.record_status_tool, document_id=document_id)


def lowlevel_server() -> Server[Any]:
    """The protocol-level server the transports run (MCPServer keeps it as a private field)."""
    return mcp._lowlevel_server  # noqa: SLF001 - the SDK's own Client reaches it the same way
