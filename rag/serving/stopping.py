"""Ctrl-C and SIGTERM during a command's build: stop at once, keeping what was embedded.

Python's asyncio turns the first Ctrl-C into a cancellation of the main task, which never lands
while a build embeds synchronously: the first Ctrl-C was ignored for minutes, the second one
printed a traceback. Here the build runs in its own thread (:class:`BackgroundBuilds`) and both
signals set its ``stopping`` event: the build stops without waiting for the batch under way
(:class:`~rag.serving.background.Watched`), saves what the batches before it embedded and
raises :class:`~rag.search.embedding_run.BuildStopped` saying how much. A second signal quits
at once, even while that is saved: the vectors saved so far (every minute,
:data:`~rag.search.embedding_run.SAVE_SECONDS`) are kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator

from rag.search.embedding_run import BuildStopped
from rag.serving.background import BackgroundBuilds

SIGNALS = (signal.SIGINT, signal.SIGTERM)
QUIT_NOW = (
    "citebot: quitting at once; the vectors saved in the last minute are kept, "
    "a rerun resumes from them"
)


@contextlib.contextmanager
def stop_on_signals(builds: BackgroundBuilds, say: Callable[[str], None]) -> Iterator[None]:
    """Within a running event loop: SIGINT and SIGTERM stop ``builds`` at the next batch.
    Only the main thread receives signals: elsewhere (a test driving the command from a
    thread) nothing is installed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()

    def stop(sig: signal.Signals) -> None:
        if builds.stopping.is_set():
            say(QUIT_NOW)
            os._exit(130)  # not even waiting for the vectors to be saved
        builds.stopping.set()
        say(f"citebot: {sig.name}: stopping, keeping what was embedded (again: quit now)…")

    for sig in SIGNALS:
        loop.add_signal_handler(sig, stop, sig)
    try:
        yield
    finally:
        for sig in SIGNALS:
            loop.remove_signal_handler(sig)


def kept_text(stopped: BuildStopped, *, again: str) -> str:
    """``kept 20,395 of 35,573 vectors; run it again to resume``."""
    if not stopped.total:  # stopped while the folder was read, before any passage existed
        return f"the folder was still being read, nothing was embedded; {again} to start over"
    return f"kept {stopped.kept:,} of {stopped.total:,} vectors; {again} to resume"
