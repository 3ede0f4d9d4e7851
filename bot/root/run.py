"""``python -m bot``: compose the bot from the environment, then chat in the console or serve.

:func:`compose` is the whole start-up (settings -> services -> web app); the scenario tests and
the load benchmark call it with their :class:`~bot.root.services.Seams`, so they run the app
``python -m bot`` runs. :func:`main` adds only what a process needs: ``.env``, logging, the
one-line errors on stderr (exit status 2), and the server loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from aiohttp import web
from dotenv import load_dotenv

from bot.root.config import Config, read_config
from bot.root.console import console_chat
from bot.root.services import IndexUnavailable, Seams, Services, open_services
from bot.root.web import create_web_app
from rag import SettingsError

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
    seams = seams or Seams()
    config = read_config(env)
    services = open_services(config, seams.pipeline)
    app = None if config.console else create_web_app(config, services, seams)
    return Composition(config, services, app)


def main() -> int:
    load_dotenv()
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        composed = compose(os.environ)
    except SettingsError as error:
        print(f"citebot: {error}", file=sys.stderr)
        return 2
    except IndexUnavailable as error:
        print(f"citebot: cannot open the documents index: {error}", file=sys.stderr)
        return 2
    if composed.app is None:
        return asyncio.run(console_chat(composed.config, composed.services))
    _announce(composed.config)
    web.run_app(composed.app, port=composed.config.bot.port, access_log=None, print=None)
    return 0


def _announce(config: Config) -> None:
    settings, feishu = config.bot, config.feishu
    if feishu is not None and feishu.mode == "ws":
        logger.info("Feishu: long connection to %s (port %d)", feishu.api_url, settings.port)
    elif feishu is not None:
        logger.info("Feishu: POST /feishu/events on port %d (%s)", settings.port, feishu.api_url)
    if settings.mode == "http":
        logger.info("HTTP mode: POST /slack/events and GET /healthz on port %d", settings.port)
    elif settings.mode == "socket":
        logger.info("Socket Mode: connecting to Slack; GET /healthz on port %d", settings.port)
