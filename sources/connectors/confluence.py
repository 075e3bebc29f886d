"""Confluence Cloud: the pages of one space (storage format, read as HTML) and their
attachments (PDF, Word, Markdown, text), through the published REST API v2:

- `GET /wiki/api/v2/spaces?keys=KEY`: the space's id;
- `GET /wiki/api/v2/spaces/{id}/pages`: every current page with its version number and link
  (no bodies), page after page through `_links.next`;
- `GET /wiki/api/v2/pages/{id}?body-format=storage`: one page's body;
- `GET /wiki/api/v2/pages/{id}/attachments` and each attachment's `downloadLink`.

The cursor is the listing as of the last sync: every page's and attachment's version number
and path. A page whose version moved is fetched again; one retitled keeps its document (its
id is stable); one gone from the listing (deleted, trashed, archived) is deleted here. An
email and API token authenticate (Basic); the token is kept encrypted. Tested against a
local server that implements these endpoints, never against Atlassian's service.
"""

from __future__ import annotations

import base64
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from rest_framework import serializers

from portal.http import urlopen_no_redirect
from sources.connectors.base import (
    Change,
    ChangeKind,
    ChangeSet,
    ConnectorError,
    ConnectorKind,
    Fetched,
    FetchError,
    wanted,
    web_url_check,
)

TIMEOUT_SECONDS = 30
PAGE_LIMIT = 250  # the most the v2 listings return at once
ATTACHMENT_GLOBS = ["*.pdf", "*.docx", "*.md", "*.txt"]
UNSAFE = re.compile(r"[\\/\x00-\x1f]+")

Listing = dict[str, list[Any]]  # external id -> [version, path, link]


class ConfluenceSettings(serializers.Serializer):
    base_url = serializers.CharField(
        max_length=300,
        label="Site URL",
        help_text="Your Confluence Cloud site, e.g. https://acme.atlassian.net",
    )
    space_key = serializers.CharField(max_length=255, label="Space key")
    email = serializers.EmailField(help_text="The account the API token belongs to.")
    api_token = serializers.CharField(
        max_length=500,
        required=False,
        allow_blank=True,
        label="API token",
        help_text="An Atlassian API token (kept encrypted; never shown again).",
    )

    def validate_base_url(self, value: str) -> str:
        return web_url_check(value.strip().rstrip("/").removesuffix("/wiki"), what="site")


def _name(title: str) -> str:
    return UNSAFE.sub(" ", title).strip() or "Untitled"


class ConfluenceConnector:
    def __init__(self, config: dict[str, Any], cache_key: str) -> None:
        self.base = config["base_url"]
        self.space_key: str = config["space_key"]
        self.links: dict[str, str] = {}  # attachment id -> its download link (the listing's)
        token = f"{config.get('email', '')}:{config.get('api_token', '')}"
        self.auth = "Basic " + base64.b64encode(token.encode()).decode()

    # --- HTTP -----------------------------------------------------------------------------

    def _open(self, url: str, *, auth: bool = True) -> bytes:
        headers = {"Accept": "application/json"}
        if auth:
            headers["Authorization"] = self.auth
        request = urllib.request.Request(url, headers=headers)
        try:
            with urlopen_no_redirect(request, timeout=TIMEOUT_SECONDS) as response:
                return bytes(response.read())
        except urllib.error.HTTPError as exc:
            location = exc.headers.get("Location") if 300 <= exc.code < 400 else None
            if location and auth:
                # a download answered by a signed link elsewhere: followed once, without
                # the credentials (they never leave the site)
                return self._open(urllib.parse.urljoin(url, location), auth=False)
            if exc.code in (401, 403):
                raise ConnectorError(
                    "Confluence refused the credentials: check the email and API token."
                ) from exc
            raise ConnectorError(f"Confluence answered HTTP {exc.code} for {url}.") from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise ConnectorError(f"Confluence at {self.base} cannot be reached.") from exc

    def _json(self, path: str) -> dict[str, Any]:
        url = path if path.startswith("http") else f"{self.base}{path}"
        try:
            body = json.loads(self._open(url))
        except ValueError as exc:
            raise ConnectorError(f"Confluence sent something that is not JSON for {url}.") from exc
        if not isinstance(body, dict):
            raise ConnectorError(f"Confluence sent an unexpected answer for {url}.")
        return body

    def _all(self, path: str) -> list[dict[str, Any]]:
        """Every result of a v2 listing, following `_links.next`."""
        results: list[dict[str, Any]] = []
        next_path: str | None = path
        while next_path:
            body = self._json(next_path)
            results.extend(row for row in body.get("results", []) if isinstance(row, dict))
            following = (body.get("_links") or {}).get("next")
            next_path = f"{following}" if following else None
            if next_path and not next_path.startswith(("/wiki/", "http")):
                next_path = f"/wiki{next_path}"
        return results

    # --- the connector --------------------------------------------------------------------

    def _space_id(self) -> str:
        key = urllib.parse.quote(self.space_key)
        spaces = self._json(f"/wiki/api/v2/spaces?keys={key}").get("results") or []
        if not spaces:
            raise ConnectorError(
                f"No space with the key {self.space_key!r} (or the account cannot see it)."
            )
        return str(spaces[0]["id"])

    def _listing(self) -> Listing:
        listing: Listing = {}
        pages = self._all(f"/wiki/api/v2/spaces/{self._space_id()}/pages?limit={PAGE_LIMIT}")
        for page in pages:
            page_id = str(page["id"])
            title = _name(str(page.get("title") or ""))
            version = int((page.get("version") or {}).get("number") or 0)
            link = str((page.get("_links") or {}).get("webui") or "")
            listing[f"page:{page_id}"] = [version, f"{title}.html", link]
            for attachment in self._all(
                f"/wiki/api/v2/pages/{page_id}/attachments?limit={PAGE_LIMIT}"
            ):
                name = _name(str(attachment.get("title") or ""))
                path = f"{title}/{name}"
                if not wanted(path, ATTACHMENT_GLOBS):
                    continue
                version = int((attachment.get("version") or {}).get("number") or 0)
                listing[f"attachment:{attachment['id']}"] = [
                    version,
                    path,
                    str(attachment.get("downloadLink") or ""),
                ]
        return listing

    def changes(self, cursor: str) -> ChangeSet:
        old: Listing = json.loads(cursor)["items"] if cursor else {}
        new = self._listing()
        changes = [
            Change(kind=ChangeKind.UPSERT, external_id=item_id, path=entry[1])
            for item_id, entry in new.items()
            if old.get(item_id, [None, None])[:2] != entry[:2]
        ]
        changes += [
            Change(kind=ChangeKind.DELETE, external_id=item_id, path=old[item_id][1])
            for item_id in old
            if item_id not in new
        ]
        self.links = {item_id: entry[2] for item_id, entry in new.items()}
        return ChangeSet(
            changes=changes, cursor=json.dumps({"items": new}, sort_keys=True), full=not cursor
        )

    def fetch(self, change: Change, cursor: str) -> Fetched:
        kind, _, item_id = change.external_id.partition(":")
        try:
            if kind == "page":
                page = self._json(f"/wiki/api/v2/pages/{item_id}?body-format=storage")
                body = ((page.get("body") or {}).get("storage") or {}).get("value") or ""
                title = str(page.get("title") or "")
                content = f"<h1>{_escape(title)}</h1>\n{body}".encode()
                link = str((page.get("_links") or {}).get("webui") or "")
            else:
                download = self.links.get(change.external_id, "")
                if not download:
                    raise FetchError(f"{change.path}: no download link")
                content = self._open(f"{self.base}/wiki{download}")
                link = ""
        except ConnectorError as exc:
            raise FetchError(f"{change.path}: {exc}") from exc
        url = f"{self.base}/wiki{link}" if link.startswith("/") else ""
        return Fetched(
            content=content,
            name=change.path,
            metadata={"source": {"kind": "confluence", "path": change.path, "url": url}},
        )

    def close(self) -> None:
        return None


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


KIND = ConnectorKind(
    name="confluence",
    label="Confluence Cloud space",
    settings_serializer=ConfluenceSettings,
    build=ConfluenceConnector,
    secret_fields=("api_token",),
)
