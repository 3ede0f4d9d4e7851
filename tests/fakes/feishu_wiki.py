"""A fake Feishu / Lark Open API for wiki spaces and docx documents, on 127.0.0.1.

Like Feishu where a client notices: a tenant token from ``tenant_access_token/internal``
(``expire`` seconds) required as ``Bearer`` (unknown or revoked -> HTTP 400, code 99991663);
errors as ``code`` != 0; rate limits as HTTP 429, code 99991400 and ``x-ogw-ratelimit-reset``;
the node tree a level at a time (``parent_node_token``), and both nodes and blocks paginated
with ``has_more`` / ``page_token`` at most ``page_size`` items a page. A document can vanish
between the listing and the fetch (1770002) or become unreadable (HTTP 403, 1770032)::

    async with FakeFeishuWiki() as wiki:
        space = wiki.add_space("员工手册")
        node = wiki.add_doc(space, "报销制度", [text("超过 5000 元需审批")])
"""

from __future__ import annotations

import itertools
import secrets
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.wiki_base import FakeService, Fault, json_response

APP_ID = "cli_wikisync0001"
APP_SECRET = "wiki-sync-secret"
INVALID_TOKEN = 99991663
RATE_LIMITED = 99991400
DOC_NOT_FOUND = 1770002
DOC_FORBIDDEN = 1770032
START_EPOCH = 1_793_000_000

Json = dict[str, Any]


def run(content: str, **style: Any) -> Json:
    return {"text_run": {"content": content, "text_element_style": style}}


def text(*runs: Json | str) -> Json:
    """A text block body (no id yet): ``text("plain", run("bold", bold=True))``."""
    elements = [run(r) if isinstance(r, str) else r for r in runs]
    return {"block_type": 2, "text": {"elements": elements, "style": {}}}


def heading(level: int, content: str) -> Json:
    return {"block_type": 2 + level, f"heading{level}": {"elements": [run(content)]}}


@dataclass(slots=True)
class Node:
    token: str
    space: str
    parent: str
    title: str
    obj_type: str
    obj_token: str
    edited: int
    vanishes: bool = False
    forbidden: bool = False
    blocks: list[Json] = field(default_factory=list)
    shortcut: bool = False
    """A shortcut node: another place in the tree showing the same document."""


class FakeFeishuWiki(FakeService):
    def __init__(self, *, page_size: int = 2, token_expire: int = 7200) -> None:
        super().__init__()
        self.page_size = page_size
        self.token_expire = token_expire
        self.spaces: dict[str, str] = {}
        self.nodes: dict[str, Node] = {}
        self._tokens: set[str] = set()
        self._ids = itertools.count(1)
        self._clock = itertools.count(60, 60)

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/open-apis/auth/v3/tenant_access_token/internal", self._token)
        app.router.add_get("/open-apis/wiki/v2/spaces/{space}", self._space)
        app.router.add_get("/open-apis/wiki/v2/spaces/{space}/nodes", self._nodes)
        app.router.add_get("/open-apis/docx/v1/documents/{doc}/blocks", self._blocks)

    # -- test controls ---------------------------------------------------------------------

    def add_space(self, name: str) -> str:
        space = f"7{next(self._ids):018d}"
        self.spaces[space] = name
        return space

    def add_doc(
        self,
        space: str,
        title: str,
        blocks: list[Json],
        *,
        parent: str = "",
        kind: str = "docx",
    ) -> str:
        number = next(self._ids)
        node = Node(f"wikcn{number:06d}", space, parent, title, kind, f"doxcn{number:06d}", 0)
        self.nodes[node.token] = node
        self.edit(node.token, blocks)
        return node.token

    def edit(self, token: str, blocks: list[Json], *, title: str | None = None) -> None:
        """The document's body becomes ``blocks`` (each a body without ids) under a page block."""
        node = self.nodes[token]
        ids = [f"blk{node.obj_token[-6:]}{i:03d}" for i in range(len(blocks))]
        page = {"block_id": node.obj_token, "block_type": 1, "children": ids}
        page["page"] = {"elements": [run(title or node.title)]}
        node.blocks = [page]
        for block_id, block in zip(ids, blocks, strict=True):
            node.blocks.append({"block_id": block_id, "parent_id": node.obj_token, **block})
        node.title = title or node.title
        node.edited = START_EPOCH + next(self._clock)

    def add_shortcut(self, space: str, token: str, *, parent: str = "") -> str:
        origin = self.nodes[token]
        shortcut = Node(f"wikcn{next(self._ids):06d}", space, parent, origin.title, "docx",
                        origin.obj_token, origin.edited, shortcut=True)  # fmt: skip
        self.nodes[shortcut.token] = shortcut
        return shortcut.token

    def delete(self, token: str) -> None:
        del self.nodes[token]

    def vanish_on_fetch(self, token: str) -> None:
        self.nodes[token].vanishes = True

    def forbid(self, token: str) -> None:
        self.nodes[token].forbidden = True

    def rate_limit(self, endpoint: str, *, times: int = 1, reset: float = 1) -> None:
        self._faults.setdefault(endpoint, []).append(Fault(times, 429, RATE_LIMITED, reset))

    def revoke_tokens(self) -> None:
        """Every tenant token handed out so far is now invalid (expired, or the secret reset)."""
        self._tokens.clear()

    # -- handlers --------------------------------------------------------------------------

    async def _token(self, request: web.Request) -> web.Response:
        body = await request.json()
        if body != {"app_id": APP_ID, "app_secret": APP_SECRET}:
            return json_response(
                self, "token", request, {"code": 10014, "msg": "app secret invalid"}
            )
        token = f"t-{secrets.token_hex(8)}"
        self._tokens.add(token)
        answer = {"code": 0, "msg": "ok", "tenant_access_token": token, "expire": self.token_expire}
        return json_response(self, "token", request, answer)

    def _refused(self, endpoint: str, request: web.Request) -> web.Response | None:
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        if token not in self._tokens:
            body = {"code": INVALID_TOKEN, "msg": "Invalid access token for authorization."}
            return json_response(self, endpoint, request, body, status=400)
        fault = self.fault(endpoint)
        if fault is None:
            return None
        headers = {"x-ogw-ratelimit-reset": f"{fault.wait:g}"} if fault.wait is not None else {}
        body = {"code": fault.code or -1, "msg": "request trigger frequency limit"}
        return json_response(self, endpoint, request, body, status=fault.status, headers=headers)

    async def _space(self, request: web.Request) -> web.Response:
        if refused := self._refused("space", request):
            return refused
        space = request.match_info["space"]
        if space not in self.spaces:
            body = {"code": 131005, "msg": "not found"}
            return json_response(self, "space", request, body, status=404)
        data = {"space": {"space_id": space, "name": self.spaces[space], "description": ""}}
        return json_response(self, "space", request, {"code": 0, "msg": "success", "data": data})

    async def _nodes(self, request: web.Request) -> web.Response:
        if refused := self._refused("nodes", request):
            return refused
        space, parent = request.match_info["space"], request.query.get("parent_node_token", "")
        level = [n for n in self.nodes.values() if n.space == space and n.parent == parent]
        window, more, token = self._page(level, request)
        items = [self._node_json(node) for node in window]
        data = {"items": items, "has_more": more, "page_token": token}
        return json_response(self, "nodes", request, {"code": 0, "msg": "success", "data": data})

    def _node_json(self, node: Node) -> Json:
        return {
            "space_id": node.space,
            "node_token": node.token,
            "obj_token": node.obj_token,
            "obj_type": node.obj_type,
            "parent_node_token": node.parent,
            "node_type": "shortcut" if node.shortcut else "origin",
            "has_child": any(n.parent == node.token for n in self.nodes.values()),
            "title": node.title,
            "obj_create_time": str(START_EPOCH),
            "obj_edit_time": str(node.edited),
        }

    async def _blocks(self, request: web.Request) -> web.Response:
        if refused := self._refused("blocks", request):
            return refused
        doc = request.match_info["doc"]
        node = next((n for n in self.nodes.values() if n.obj_token == doc and not n.shortcut), None)
        if node is None or node.vanishes:
            if node is not None:
                del self.nodes[node.token]
            body = {"code": DOC_NOT_FOUND, "msg": "document not found"}
            return json_response(self, "blocks", request, body, status=404)
        if node.forbidden:
            body = {"code": DOC_FORBIDDEN, "msg": "forbidden"}
            return json_response(self, "blocks", request, body, status=403)
        window, more, token = self._page(node.blocks, request)
        data = {"items": window, "has_more": more, "page_token": token}
        return json_response(self, "blocks", request, {"code": 0, "msg": "success", "data": data})

    def _page(self, items: list[Any], request: web.Request) -> tuple[list[Any], bool, str]:
        start = int(request.query.get("page_token") or 0)
        size = min(int(request.query.get("page_size") or 20), self.page_size)
        end = start + size
        return items[start:end], end < len(items), str(end) if end < len(items) else ""
