"""Confluence as a source: Cloud (REST API v2) and Data Center / Server (REST API v1).

    Cloud  GET /api/v2/spaces?keys=…                      space keys -> ids (1 call)
           GET /api/v2/spaces/{id}/pages                  every page, no body; ``_links.next``
           GET /api/v2/pages/{id}?body-format=storage     one page's storage XHTML
           Basic auth: the account's email and an API token
    DC     GET /rest/api/space/{key}                      the space exists and is readable
           GET /rest/api/content?spaceKey=…&type=page&expand=version   every page, ``_links.next``
           GET /rest/api/content/{id}?expand=body.storage,version,space
           Bearer: a personal access token

A listing of a space's pages (ids, titles and versions, no bodies) is made once per sync and
answers both ``changed`` and ``live``: neither API filters pages by modified time, so the
cheapest "what changed" is that listing compared with the cursor. 404 on a page is
:class:`~rag.sync.source.Gone`, 403 :class:`~rag.sync.source.Forbidden` (Data Center answers
404 for pages the token may not see, which drops them the same way).
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Sequence
from typing import Any
from urllib.parse import urljoin

import aiohttp

from rag.http.json_api import JsonApi
from rag.http.retry import HttpError, HttpRetry
from rag.sync.confluence_markdown import storage_to_markdown
from rag.sync.source import Changes, Document, Entry, Forbidden, Gone, SourceError, newest, utc_iso
from rag.sync.sources_file import ConfluenceCloud, ConfluenceDataCenter, SourceConfig

PAGE_SIZE_CLOUD = 250
PAGE_SIZE_DC = 100


def _refused(error: HttpError, what: str) -> SourceError:
    if error.status == 401:
        return SourceError(f"Confluence refused the credentials (HTTP 401); check {what}")
    if error.status == 403:
        return SourceError(f"the credentials may not read this (HTTP 403); check {what}")
    return SourceError(str(error))


class _Confluence:
    kind = "confluence"

    def __init__(self, name: str, api: JsonApi, spaces: Sequence[str], credential: str) -> None:
        self.name = name
        self.api = api
        self.spaces = tuple(spaces)
        self.credential = credential
        self._listing: list[Entry] | None = None
        self.spaces_of: dict[str, str] = {}
        """page id -> space key, from the listing."""

    def api_calls(self) -> int:
        return self.api.calls

    async def changed(self, cursor: str | None) -> Changes:
        entries = await self.live()
        fresh = tuple(entry for entry in entries if cursor is None or entry.modified >= cursor)
        return Changes(fresh, newest(entries, cursor))

    async def live(self) -> Sequence[Entry]:
        if self._listing is None:
            try:
                self._listing = [entry async for entry in self._list()]
            except HttpError as error:
                if error.transient:
                    raise
                raise _refused(error, self.credential) from error
        return self._listing

    async def fetch(self, entry: Entry) -> Document:
        try:
            return await self._fetch(entry)
        except HttpError as error:
            if error.status == 404:
                msg = "deleted (HTTP 404)"
                raise Gone(msg) from error
            if error.status == 403:
                msg = "no permission (HTTP 403)"
                raise Forbidden(msg) from error
            raise

    async def _pages(self, path: str, params: dict[str, str] | None) -> AsyncIterator[Any]:
        """Every result of a listing, following ``_links.next`` (its own query carries on)."""
        next_path: str | None = path
        while next_path:
            data = await self.api.request("GET", next_path, params=params)
            for result in data.get("results") or []:
                yield result
            links = data.get("_links") or {}
            following = links.get("next")
            next_path = self._next(following, links) if following else None
            params = None

    def _next(self, following: str, links: dict[str, Any]) -> str:
        return urljoin(self.api.base_url + "/", following)

    def _list(self) -> AsyncIterator[Entry]:
        raise NotImplementedError  # pragma: no cover

    async def _fetch(self, entry: Entry) -> Document:
        raise NotImplementedError  # pragma: no cover


class ConfluenceCloudSource(_Confluence):
    async def _list(self) -> AsyncIterator[Entry]:
        params = {"keys": ",".join(self.spaces), "limit": str(PAGE_SIZE_CLOUD)}
        found = {s["key"]: str(s["id"]) async for s in self._pages("/api/v2/spaces", params)}
        missing = [key for key in self.spaces if key not in found]
        if missing:
            msg = f"space {missing[0]} was not found or may not be read by {self.credential}"
            raise SourceError(msg)
        for key in self.spaces:
            path = f"/api/v2/spaces/{found[key]}/pages"
            params = {"limit": str(PAGE_SIZE_CLOUD), "status": "current"}
            async for page in self._pages(path, params):
                self.spaces_of[str(page["id"])] = key
                when = utc_iso(page["version"]["createdAt"])
                yield Entry(str(page["id"]), when, f"{key}/{page.get('title', '')}")

    async def _fetch(self, entry: Entry) -> Document:
        page = await self.api.request(
            "GET", f"/api/v2/pages/{entry.id}", params={"body-format": "storage"}
        )
        links = page.get("_links") or {}
        base = str(links.get("base") or self.api.base_url)
        storage = ((page.get("body") or {}).get("storage") or {}).get("value") or ""
        return Document(
            id=entry.id,
            title=str(page["title"]),
            url=base.rstrip("/")
            + str(links.get("webui") or f"/pages/viewpage.action?pageId={entry.id}"),
            modified=utc_iso(page["version"]["createdAt"]),
            place=(self.spaces_of.get(entry.id, "unknown"),),
            markdown=storage_to_markdown(storage),
        )


class ConfluenceDataCenterSource(_Confluence):
    def _next(self, following: str, links: dict[str, Any]) -> str:
        base = str(links.get("base") or self.api.base_url).rstrip("/")
        return following if following.startswith("http") else base + following

    async def _list(self) -> AsyncIterator[Entry]:
        for key in self.spaces:
            try:
                await self.api.request("GET", f"/rest/api/space/{key}")
            except HttpError as error:
                if error.status != 404:
                    raise
                msg = f"space {key} was not found or may not be read by {self.credential}"
                raise SourceError(msg) from error
            params = {
                "spaceKey": key,
                "type": "page",
                "status": "current",
                "expand": "version",
                "limit": str(PAGE_SIZE_DC),
            }
            async for page in self._pages("/rest/api/content", params):
                self.spaces_of[str(page["id"])] = key
                when = utc_iso(page["version"]["when"])
                yield Entry(str(page["id"]), when, f"{key}/{page.get('title', '')}")

    async def _fetch(self, entry: Entry) -> Document:
        page = await self.api.request(
            "GET",
            f"/rest/api/content/{entry.id}",
            params={"expand": "body.storage,version,space"},
        )
        links = page.get("_links") or {}
        base = str(links.get("base") or self.api.base_url).rstrip("/")
        storage = ((page.get("body") or {}).get("storage") or {}).get("value") or ""
        space = (page.get("space") or {}).get("key") or self.spaces_of.get(entry.id, "unknown")
        return Document(
            id=entry.id,
            title=str(page["title"]),
            url=base + str(links.get("webui") or f"/pages/viewpage.action?pageId={entry.id}"),
            modified=utc_iso(page["version"]["when"]),
            place=(str(space),),
            markdown=storage_to_markdown(storage),
        )


def confluence_cloud(
    config: SourceConfig, session: aiohttp.ClientSession, retry: HttpRetry
) -> ConfluenceCloudSource:
    settings = config.settings
    assert isinstance(settings, ConfluenceCloud)
    pair = f"{settings.email}:{config.secret('token_env')}".encode()
    headers = {
        "Authorization": "Basic " + base64.b64encode(pair).decode(),
        "Accept": "application/json",
    }
    api = JsonApi(session, settings.url, headers=headers, retry=retry)
    return ConfluenceCloudSource(
        config.name, api, settings.spaces, f"{settings.email} / {settings.token_env}"
    )


def confluence_data_center(
    config: SourceConfig, session: aiohttp.ClientSession, retry: HttpRetry
) -> ConfluenceDataCenterSource:
    settings = config.settings
    assert isinstance(settings, ConfluenceDataCenter)
    headers = {
        "Authorization": f"Bearer {config.secret('token_env')}",
        "Accept": "application/json",
    }
    api = JsonApi(session, settings.url, headers=headers, retry=retry)
    return ConfluenceDataCenterSource(config.name, api, settings.spaces, settings.token_env)
