"""A fake Confluence on 127.0.0.1: Cloud (REST v2 under /wiki) and Data Center (REST v1).

It behaves where a client notices: basic auth (email + API token) for Cloud and a bearer
personal access token for Data Center (anything else -> 401); listings paginate with opaque
cursors (Cloud) or ``start`` (DC) behind ``_links.next``, at most ``max_limit`` results a page
whatever ``limit`` asks; 429 with ``Retry-After``; pages whose fetch answers 404 although the
listing named them (deleted in between) or 403 (restricted in between). Every edit bumps the
version and its time::

    async with FakeConfluence() as wiki:
        page = wiki.add_page("HR", "Annual leave", "<p>15 days</p>")
        wiki.edit(page, "<p>20 days</p>")
        wiki.rate_limit("pages", times=1, wait=7)
"""

from __future__ import annotations

import base64
import itertools
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from aiohttp import web

from tests.fakes.wiki_base import FakeService, Fault, json_response

EMAIL = "citebot@example.com"
API_TOKEN = "cloud-api-token-1"
PAT = "dc-personal-access-token-1"
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
DC_ZONE = timezone(timedelta(hours=8))
"""Data Center answers in the server's time zone, not UTC."""


@dataclass(slots=True)
class Page:
    id: str
    space: str
    title: str
    body: str
    version: int
    when: datetime
    vanishes: bool = False
    """Listed, but deleted by the time it is fetched (404)."""
    forbidden: bool = False
    """Listed, but restricted by the time it is fetched (403)."""


class FakeConfluence(FakeService):
    def __init__(self, *, max_limit: int = 2) -> None:
        super().__init__()
        self.max_limit = max_limit
        self.spaces: dict[str, tuple[str, str]] = {}
        """key -> (id, name)."""
        self.pages: dict[str, Page] = {}
        self._ids = itertools.count(101)
        self._clock = itertools.count(1)

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/wiki/api/v2/spaces", self._cloud_spaces)
        app.router.add_get("/wiki/api/v2/spaces/{id}/pages", self._cloud_pages)
        app.router.add_get("/wiki/api/v2/pages/{id}", self._cloud_page)
        app.router.add_get("/rest/api/space/{key}", self._dc_space)
        app.router.add_get("/rest/api/content", self._dc_pages)
        app.router.add_get("/rest/api/content/{id}", self._dc_page)

    @property
    def cloud_url(self) -> str:
        return f"{self.url}/wiki"

    # -- test controls ---------------------------------------------------------------------

    def add_space(self, key: str, name: str = "") -> None:
        self.spaces.setdefault(key, (str(len(self.spaces) + 9001), name or key))

    def add_page(self, space: str, title: str, body: str) -> str:
        self.add_space(space)
        page = Page(str(next(self._ids)), space, title, body, 1, self._tick())
        self.pages[page.id] = page
        return page.id

    def edit(self, page_id: str, body: str | None = None, *, title: str | None = None) -> None:
        page = self.pages[page_id]
        page.body = body if body is not None else page.body
        page.title = title if title is not None else page.title
        page.version += 1
        page.when = self._tick()

    def delete(self, page_id: str) -> None:
        del self.pages[page_id]

    def vanish_on_fetch(self, page_id: str) -> None:
        self.pages[page_id].vanishes = True

    def forbid(self, page_id: str) -> None:
        self.pages[page_id].forbidden = True

    def rate_limit(self, endpoint: str, *, times: int = 1, wait: float = 1) -> None:
        self._faults.setdefault(endpoint, []).append(Fault(times, 429, wait=wait))

    def _tick(self) -> datetime:
        return START + timedelta(minutes=next(self._clock))

    # -- shared ----------------------------------------------------------------------------

    def _refused(self, endpoint: str, request: web.Request, cloud: bool) -> web.Response | None:
        auth = request.headers.get("Authorization", "")
        if cloud:
            expected = "Basic " + base64.b64encode(f"{EMAIL}:{API_TOKEN}".encode()).decode()
        else:
            expected = f"Bearer {PAT}"
        if auth != expected:
            return json_response(self, endpoint, request, {"message": "Unauthorized"}, status=401)
        fault = self.fault(endpoint)
        if fault is None:
            return None
        headers = {} if fault.wait is None else {"Retry-After": f"{fault.wait:g}"}
        body = {"message": "Rate limited" if fault.status == 429 else "Server error"}
        return json_response(self, endpoint, request, body, status=fault.status, headers=headers)

    def _window(self, items: list[Any], start: int, limit: str | None) -> tuple[list[Any], int]:
        size = min(int(limit or 25), self.max_limit)
        return items[start : start + size], start + size

    def _in_space(self, key: str) -> list[Page]:
        return sorted((p for p in self.pages.values() if p.space == key), key=lambda p: int(p.id))

    def _fetched(self, endpoint: str, request: web.Request) -> Page | web.Response:
        page = self.pages.get(request.match_info["id"])
        if page is None or page.vanishes:
            if page is not None:
                del self.pages[page.id]
            return json_response(self, endpoint, request, {"message": "Not found"}, status=404)
        if page.forbidden:
            return json_response(self, endpoint, request, {"message": "Forbidden"}, status=403)
        return page

    # -- Cloud, REST v2 --------------------------------------------------------------------

    async def _cloud_spaces(self, request: web.Request) -> web.Response:
        if refused := self._refused("spaces", request, cloud=True):
            return refused
        keys = [k for k in request.query.get("keys", "").split(",") if k in self.spaces]
        results = [{"id": self.spaces[k][0], "key": k, "name": self.spaces[k][1]} for k in keys]
        return json_response(self, "spaces", request, {"results": results, "_links": {}})

    async def _cloud_pages(self, request: web.Request) -> web.Response:
        if refused := self._refused("pages", request, cloud=True):
            return refused
        key = next((k for k, (i, _) in self.spaces.items() if i == request.match_info["id"]), "")
        start = int(base64.b64decode(request.query.get("cursor", "MA==")).decode())
        window, end = self._window(self._in_space(key), start, request.query.get("limit"))
        links: dict[str, str] = {"base": self.cloud_url}
        if end < len(self._in_space(key)):
            cursor = base64.b64encode(str(end).encode()).decode()
            links["next"] = f"/wiki/api/v2/spaces/{request.match_info['id']}/pages?cursor={cursor}"
            links["next"] += f"&limit={request.query.get('limit', '25')}"
        results = [self._cloud_json(page, body=False) for page in window]
        return json_response(self, "pages", request, {"results": results, "_links": links})

    async def _cloud_page(self, request: web.Request) -> web.Response:
        if refused := self._refused("page", request, cloud=True):
            return refused
        page = self._fetched("page", request)
        if isinstance(page, web.Response):
            return page
        body = request.query.get("body-format") == "storage"
        return json_response(self, "page", request, self._cloud_json(page, body=body))

    def _cloud_json(self, page: Page, *, body: bool) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": page.id,
            "status": "current",
            "title": page.title,
            "spaceId": self.spaces[page.space][0],
            "version": {"number": page.version, "createdAt": page.when.isoformat()},
            "_links": {"webui": f"/spaces/{page.space}/pages/{page.id}", "base": self.cloud_url},
        }
        if body:
            data["body"] = {"storage": {"representation": "storage", "value": page.body}}
        return data

    # -- Data Center, REST v1 --------------------------------------------------------------

    async def _dc_space(self, request: web.Request) -> web.Response:
        if refused := self._refused("space", request, cloud=False):
            return refused
        key = request.match_info["key"]
        if key not in self.spaces:
            return json_response(self, "space", request, {"message": "No space"}, status=404)
        return json_response(self, "space", request, {"key": key, "name": self.spaces[key][1]})

    async def _dc_pages(self, request: web.Request) -> web.Response:
        if refused := self._refused("pages", request, cloud=False):
            return refused
        key = request.query.get("spaceKey", "")
        start = int(request.query.get("start", "0"))
        window, end = self._window(self._in_space(key), start, request.query.get("limit"))
        links: dict[str, str] = {"base": self.url, "context": ""}
        if end < len(self._in_space(key)):
            links["next"] = (
                f"/rest/api/content?spaceKey={key}&type=page&expand=version"
                f"&limit={request.query.get('limit', '25')}&start={end}"
            )
        results = [self._dc_json(page, body=False) for page in window]
        body = {"results": results, "start": start, "size": len(results), "_links": links}
        return json_response(self, "pages", request, body)

    async def _dc_page(self, request: web.Request) -> web.Response:
        if refused := self._refused("page", request, cloud=False):
            return refused
        page = self._fetched("page", request)
        if isinstance(page, web.Response):
            return page
        body = "body.storage" in request.query.get("expand", "")
        return json_response(self, "page", request, self._dc_json(page, body=body))

    def _dc_json(self, page: Page, *, body: bool) -> dict[str, Any]:
        local = page.when.astimezone(DC_ZONE)
        data: dict[str, Any] = {
            "id": page.id,
            "type": "page",
            "status": "current",
            "title": page.title,
            "version": {"number": page.version, "when": local.isoformat(timespec="milliseconds")},
            "space": {"key": page.space},
            "_links": {"webui": f"/pages/viewpage.action?pageId={page.id}"},
        }
        if body:
            data["body"] = {"storage": {"value": page.body, "representation": "storage"}}
        return data
