"""Config -> a running bot: services, then the web app (or the console chat over them).

Imported only once the settings are valid (:mod:`bot.root.run`): this is where the heavy parts
(the index, embeddings, the chat model, the checker's segmenter, aiohttp) come in. The web app
and the platforms' SDKs only when something is served: the console chat needs none of them.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.root.config import Config, read_config
from bot.root.console import console_chat
from bot.root.services import IndexUnavailable, Seams, Services, open_services

if TYPE_CHECKING:
    from aiohttp import web

logger = logging.getLogger("citebot")


@dataclass
class Composition:
    config: Config
    services: Services
    app: web.Application | None
    """The web app; ``None`` for the console chat, which serves nothing."""


def compose(env: Mapping[str, str], seams: Seams | None = None) -> Composition:
    """Raises :class:`rag.SettingsError` for a bad setting (before anything heavy is opened)
    and :class:`~bot.root.services.IndexUnavailable` when the documents cannot be indexed."""
    return compose_config(read_config(env), seams)


def compose_config(config: Config, seams: Seams | None = None) -> Composition:
    seams = seams or Seams()
    services = open_services(config, seams.pipeline)
    if config.console:
        return Composition(config, services, None)
    from bot.root.web import create_web_app  # Slack's and Feishu's SDKs, aiohttp's server

    return Composition(config, services, create_web_app(config, services, seams))


def run(config: Config) -> int:
    """Open what ``config`` describes and chat in the console or serve until stopped."""
    try:
        composed = compose_config(config)
    except IndexUnavailable as error:
        print(f"citebot: cannot open the documents index: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C while a new folder is read: seconds, nothing embedded
        print("\ncitebot: stopped while opening the index; nothing was embedded", file=sys.stderr)
        return 130
    if composed.app is None:
        return asyncio.run(console_chat(composed.config, composed.services))
    from aiohttp import web

    config = composed.config

    async def announce(_: web.Application) -> None:  # once every platform has started
        _announce(config)

    composed.app.on_startup.append(announce)
    web.run_app(composed.app, port=composed.config.bot.port, access_log=None, print=None)
    return 0


def _announce(config: Config) -> None:
    settings, feishu = config.bot, config.feishu
    port = settings.port
    if feishu is not None and feishu.mode == "ws":
        logger.info("Feishu: long connection to %s (port %d)", feishu.api_url, port)
    elif feishu is not None:
        logger.info("Feishu: POST /feishu/events on port %d (%s)", port, feishu.api_url)
    if settings.mode == "http":
        logger.info("HTTP mode: POST /slack/events, GET /healthz and /metrics on port %d", port)
    elif settings.mode == "socket":
        logger.info("Socket Mode: connecting to Slack; GET /healthz and /metrics on port %d", port)
