"""The local console chat (neither SLACK_BOT_TOKEN nor FEISHU_APP_ID) over the shared services,
on stdin and stdout; closes them when the chat ends.

It starts as the bot does: on a folder whose vectors are missing it answers from the lexical
index at once while the backfill embeds in the background (``live.follow()``, the bot's own
follower), with a line saying so and progress lines on stderr (:class:`rag.BackfillWatch`),
and switches to full mode when the backfill is done. Ctrl-C or SIGTERM end the chat within a
few seconds: the backfill stops without waiting for the batch under way (at the lowest CPU
priority on a busy machine one took a minute), keeps what the batches before it embedded and
says how much.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Coroutine
from typing import Any

from bot import questionlog
from bot.console import banner, chat
from bot.root.config import Config
from bot.root.services import Services, rewriter
from rag import BackfillWatch, LivePipeline

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
QUIT_NOW = (
    "citebot: quitting at once; the vectors saved in the last minute are kept, "
    "the next start resumes from them"
)


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
    live = services.pipeline if isinstance(services.pipeline, LivePipeline) else None
    watch = None if live is None else BackfillWatch(live, config.bot.rag, sys.stderr)
    background: list[asyncio.Task[None]] = []
    if live is not None and watch is not None:
        print(watch.greeting(), file=sys.stderr, flush=True)
        background = [asyncio.create_task(live.follow()), asyncio.create_task(watch.run())]
    try:
        follow_ups = rewriter(config, services.pipeline)
        talk = chat(
            services.pipeline, sys.stdin, sys.stdout, greeting=greeting, rewriter=follow_ups
        )
        return await _until_stopped(talk)
    finally:
        await _stop(background, live, watch)
        _restore_signals()
        questionlog.logger.setLevel(level)
        await services.aclose()


def _restore_signals() -> None:
    loop = asyncio.get_running_loop()
    for sig in STOP_SIGNALS:
        loop.remove_signal_handler(sig)


async def _until_stopped(talk: Coroutine[Any, Any, int]) -> int:
    """The chat's exit status; 130 when Ctrl-C or SIGTERM ended it."""
    task = asyncio.create_task(talk)
    loop = asyncio.get_running_loop()
    stopped: list[signal.Signals] = []

    def stop(sig: signal.Signals) -> None:
        if stopped:  # a second one: not even the saving of the vectors is waited for
            print(QUIT_NOW, file=sys.stderr, flush=True)
            os._exit(130)
        stopped.append(sig)
        task.cancel()

    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stop, sig)
    try:
        return await task
    except asyncio.CancelledError:
        if not stopped:
            raise
        waiting = "stopping, keeping what was embedded (again: quit now)…"
        print(f"\ncitebot: {stopped[0].name}: {waiting}", file=sys.stderr, flush=True)
        return 130


async def _stop(
    background: list[asyncio.Task[None]], live: LivePipeline | None, watch: BackfillWatch | None
) -> None:
    """Cancel the follower and the progress lines, wait for the backfill to save what it
    embedded (not for its batch under way), say what was kept."""
    for task in background:
        task.cancel()
    for task in background:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
    if live is None or watch is None:
        return
    await live.finish_builds()
    kept = watch.kept()
    if kept is not None:
        print(f"citebot: {kept}", file=sys.stderr, flush=True)
