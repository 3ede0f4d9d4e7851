"""Feishu / Lark wiki spaces as a source (知识库), their docx documents as Markdown.

    POST /open-apis/auth/v3/tenant_access_token/internal   the app's tenant token
    GET  /open-apis/wiki/v2/spaces/{space_id}               the space's name (1 call a space)
    GET  /open-apis/wiki/v2/spaces/{space_id}/nodes         a level of the tree, paginated
                                                            (``has_more``/``page_token``);
                                                            ``parent_node_token`` for children
    GET  /open-apis/docx/v1/documents/{id}/blocks           one document's blocks, paginated

Token, rate limits and retries are the bot's own Feishu client's (:mod:`rag.http.feishu`);
credentials Feishu refuses fail the source with a line that says so. The node tree is
walked once per sync and answers both ``changed`` (by each node's ``obj_edit_time``) and
``live``. Only docx nodes are documents; sheets, bitables, mind notes and old-style docs are
skipped, their children are still walked; a shortcut is not synced again (its origin is).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import aiohttp

from rag.http.feishu import CredentialsRefused, FeishuOpenApi
from rag.http.retry import HttpError, HttpRetry
from rag.sync.feishu_markdown import blocks_to_markdown
from rag.sync.source import Changes, Document, Entry, Forbidden, Gone, SourceError, newest, utc_iso
from rag.sync.sources_file import FeishuWiki, SourceConfig

NOT_FOUND = frozenset({1770002, 131005})
"""docx: document not found; wiki: node not found."""
NO_PERMISSION = frozenset({1770032, 131006, 99991672})
"""docx: forbidden; wiki: permission denied; the app lacks the scope."""


class FeishuClient:
    """``get(path)``: the ``data`` of a GET through the shared Open API client."""

    def __init__(self, api: FeishuOpenApi, *, credentials: str) -> None:
        self.api = api
        self.credentials = credentials
        """Where the app id and secret come from (the variables SOURCES_FILE names)."""

    async def get(self, path: str, params: Mapping[str, str] | None = None) -> dict[str, Any]:
        try:
            body = await self.api.call("GET", path, params=params)
        except CredentialsRefused as error:
            msg = (
                f"Feishu refused the app's credentials ({error.code}: {error.message}); check "
                f"{self.credentials}"
            )
            raise SourceError(msg) from error
        return dict(body.get("data") or {})


@dataclass(frozen=True, slots=True)
class _Node:
    token: str
    document: str
    title: str
    place: tuple[str, ...]
    """Space name, then the titles of the parent nodes."""
    modified: str


class FeishuWikiSource:
    kind = "feishu"

    def __init__(self, name: str, client: FeishuClient, spaces: Sequence[str], site: str) -> None:
        self.name = name
        self.client = client
        self.spaces = tuple(spaces)
        self.site = site.rstrip("/")
        self._nodes: dict[str, _Node] | None = None

    def api_calls(self) -> int:
        return self.client.api.calls

    async def changed(self, cursor: str | None) -> Changes:
        entries = await self.live()
        fresh = tuple(entry for entry in entries if cursor is None or entry.modified >= cursor)
        return Changes(fresh, newest(entries, cursor))

    async def live(self) -> Sequence[Entry]:
        if self._nodes is None:
            nodes: dict[str, _Node] = {}
            for space in self.spaces:
                nodes.update(await self._walk(space))
            self._nodes = nodes
        return [
            Entry(node.token, node.modified, "/".join((*node.place, node.title)))
            for node in self._nodes.values()
        ]

    async def fetch(self, entry: Entry) -> Document:
        node = (self._nodes or {}).get(entry.id)
        if node is None:
            msg = "not in the wiki any more"
            raise Gone(msg)
        try:
            blocks = await self._blocks(node.document)
        except HttpError as error:
            if error.status == 404 or error.code in NOT_FOUND:
                msg = f"deleted ({error.code or error.status})"
                raise Gone(msg) from error
            if error.status == 403 or error.code in NO_PERMISSION:
                msg = f"no permission ({error.code or error.status})"
                raise Forbidden(msg) from error
            raise
        return Document(
            id=node.token,
            title=node.title,
            url=f"{self.site}/wiki/{node.token}",
            modified=node.modified,
            place=node.place,
            markdown=blocks_to_markdown(blocks),
        )

    async def _walk(self, space: str) -> dict[str, _Node]:
        try:
            info = await self.client.get(f"/open-apis/wiki/v2/spaces/{space}")
        except HttpError as error:
            if error.transient:
                raise
            msg = (
                f"wiki space {space} cannot be read ({error.code or error.status}: "
                f"{error.message}); add the app to the space's members"
            )
            raise SourceError(msg) from error
        name = str((info.get("space") or {}).get("name") or space)
        found: dict[str, _Node] = {}
        pending: list[tuple[str, tuple[str, ...]]] = [("", (name,))]
        while pending:
            parent, place = pending.pop(0)
            for item in await self._level(space, parent):
                title = str(item.get("title") or "").strip() or str(item["node_token"])
                if item.get("obj_type") == "docx" and item.get("node_type") != "shortcut":
                    found[str(item["node_token"])] = _Node(
                        str(item["node_token"]),
                        str(item["obj_token"]),
                        title,
                        place,
                        utc_iso(str(item.get("obj_edit_time") or 0)),
                    )
                if item.get("has_child"):
                    pending.append((str(item["node_token"]), (*place, title)))
        return found

    async def _level(self, space: str, parent: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        page = ""
        while True:
            params = {"page_size": "50"}
            if parent:
                params["parent_node_token"] = parent
            if page:
                params["page_token"] = page
            data = await self.client.get(f"/open-apis/wiki/v2/spaces/{space}/nodes", params)
            items.extend(data.get("items") or [])
            page = str(data.get("page_token") or "")
            if not data.get("has_more") or not page:
                return items

    async def _blocks(self, document: str) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        page = ""
        while True:
            params = {"page_size": "500", "document_revision_id": "-1"}
            if page:
                params["page_token"] = page
            data = await self.client.get(f"/open-apis/docx/v1/documents/{document}/blocks", params)
            blocks.extend(data.get("items") or [])
            page = str(data.get("page_token") or "")
            if not data.get("has_more") or not page:
                return blocks


def feishu_wiki(
    config: SourceConfig, session: aiohttp.ClientSession, retry: HttpRetry
) -> FeishuWikiSource:
    settings = config.settings
    assert isinstance(settings, FeishuWiki)
    api = FeishuOpenApi(
        session,
        base_url=settings.api_url or config.api_url,
        app_id=config.secret("app_id_env"),
        app_secret=config.secret("app_secret_env"),
        retry=retry,
    )
    names = f"{settings.app_id_env} and {settings.app_secret_env}"
    client = FeishuClient(api, credentials=names)
    return FeishuWikiSource(config.name, client, settings.spaces, settings.site)
