"""What a person at a terminal is told while a live pipeline answers lexically and embeds.

The console chat (``python -m bot`` without a chat platform) serves the same live pipeline as
the bot (:func:`rag.serving.serve.serve_pipeline`): on a folder whose vectors are missing it
answers from the lexical index at once while the backfill embeds in the background. The bot
reports that on ``/healthz``; the console says it in lines: one when it starts (passages, mode,
how long full quality will take), a progress line while it embeds (every :data:`EVERY_SECONDS`
when output is not a terminal, every :data:`TERMINAL_EVERY_SECONDS` on one, not to bury the
chat), one when it switches to full mode, and what was kept when it is stopped.
"""

from __future__ import annotations

import asyncio
from typing import TextIO

from rag.search.progress_line import ProgressLine, duration
from rag.serving.live import LivePipeline
from rag.serving.opening import embedding_estimate
from rag.settings import Settings

EVERY_SECONDS = 5.0
TERMINAL_EVERY_SECONDS = 30.0
POLL_SECONDS = 1.0


class BackfillWatch:
    def __init__(
        self,
        live: LivePipeline,
        settings: Settings,
        stream: TextIO,
        *,
        every: float | None = None,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.live = live
        self.settings = settings
        self.stream = stream
        terminal = stream.isatty()
        if every is None:
            every = TERMINAL_EVERY_SECONDS if terminal else EVERY_SECONDS
        self.line = ProgressLine(stream, every=every, terminal=False)
        self.poll_seconds = poll_seconds

    @property
    def lexical(self) -> bool:
        return self.live.holder.state.mode == "lexical"

    def greeting(self) -> str:
        """One line: passages, mode, and how long full quality will take."""
        passages = len(self.live.index)
        if not self.lexical:
            return f"Full mode: lexical and dense search over {passages:,} passages."
        missing = self.live.holder.state.backfill_total
        estimate = embedding_estimate(self.settings, missing)
        took = "" if estimate is None else f", about {duration(estimate)} on 2 cores"
        return (
            f"Lexical mode: answering now from the lexical index ({passages:,} passages), each "
            "question weighed on its best passages, embedded for it; "
            f"embedding {missing:,} of them in the background for full quality{took}. "
            "Progress below; Ctrl-C stops and keeps what was embedded, the next start resumes."
        )

    async def run(self) -> None:
        """Progress lines until the backfill ends (then one line saying so); cancel to stop.
        Started in full mode, it says nothing: :meth:`greeting` already said so."""
        switches = self.lexical
        while self.lexical:
            state = self.live.holder.state
            if state.backfill_total:
                self.line(state.backfill_done, state.backfill_total)
            await asyncio.sleep(self.poll_seconds)
        if switches:
            self._say(f"Full mode: dense search on too, over {len(self.live.index):,} passages.")

    def kept(self) -> str | None:
        """After a stop during the backfill: how many vectors the next start will not embed."""
        state = self.live.holder.state
        if not self.lexical or not state.backfill_total:
            return None
        vectors = state.vectors or len(self.live.index)
        kept = vectors - state.backfill_total + state.backfill_done
        return f"kept {kept:,} of {vectors:,} vectors; start again to resume"

    def _say(self, text: str) -> None:
        print(text, file=self.stream, flush=True)
