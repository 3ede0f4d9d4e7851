"""The local console chat (neither SLACK_BOT_TOKEN nor FEISHU_APP_ID) over the shared services,
on stdin and stdout; closes them when the chat ends."""

from __future__ import annotations

import logging
import sys

from bot import questionlog
from bot.console import banner, chat
from bot.root.config import Config
from bot.root.services import Services, rewriter


async def console_chat(config: Config, services: Services) -> int:
    greeting = banner(
        docs_dir=str(config.bot.rag.docs_dir),
        chunks=len(services.pipeline.index),
        chat_model=config.bot.rag.chat_model_mode,
    )
    # The one JSON line per question is for a server's logs: on a terminal, stderr shares the
    # screen with the chat and would interleave with the answers the operator is reading.
    level = questionlog.logger.level
    questionlog.logger.setLevel(logging.WARNING)
    try:
        follow_ups = rewriter(config, services.pipeline)
        return await chat(
            services.pipeline, sys.stdin, sys.stdout, greeting=greeting, rewriter=follow_ups
        )
    finally:
        questionlog.logger.setLevel(level)
        await services.aclose()
