"""The local console chat: the same pipeline and renderer as Slack, without Slack.

``python -m bot`` without SLACK_BOT_TOKEN lands here, so anyone can try the bot over docs/ in
a terminal. It also reads piped questions (``printf '退费怎么算\\n' | python -m bot``): one
answer per line, no prompt when stdin is not a terminal. Replies are plain text with the same
content as the Slack reply: the answer, the sources it cites with file, heading path, link and
score, and where a cached or reviewed answer came from.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import TextIO

from bot import texts
from bot.answering import cut
from bot.ports import Answerer
from rag import (
    MAX_QUESTION_CHARS,
    Answer,
    GenerationError,
    Language,
    Provenance,
    Refusal,
    Result,
    Unverified,
    detect_language,
    model_failure_text,
)

logger = logging.getLogger(__name__)


def banner(*, docs_dir: str, chunks: int, chat_model: str) -> str:
    return (
        f"No SLACK_BOT_TOKEN: local console chat over {docs_dir}/ ({chunks} passages, "
        f"chat model: {chat_model}); Ctrl-D to quit"
    )


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def provenance_text(provenance: Provenance, language: Language) -> str | None:
    parts: list[str] = []
    if provenance.reviewed_by:
        when = _when(provenance.reviewed_at) if provenance.reviewed_at else "—"
        parts.append(texts.REVIEWED[language].format(reviewer=provenance.reviewed_by, date=when))
    if provenance.cached_at:
        parts.append(texts.CACHED[language].format(date=_when(provenance.cached_at)))
    return " · ".join(parts) or None


def render_plain(result: Result, language: Language) -> str:
    if isinstance(result, Unverified):
        return texts.UNVERIFIED[language]
    lines = [result.text]
    if isinstance(result, Answer):
        for n in result.cited:
            hit = result.hits[n - 1]
            chunk = hit.chunk
            where = " › ".join(part for part in (chunk.source, chunk.heading_path) if part)
            link = f"  {chunk.link}" if chunk.link else ""
            lines.append(f"  [{n}] {chunk.title or chunk.source} — {where} ({hit.score:.2f}){link}")
    if not isinstance(result, Refusal) or result.provenance != Provenance():
        line = provenance_text(result.provenance, language)
        if line:
            lines.append(f"  ({line})")
    return "\n".join(lines)


async def answer_line(answerer: Answerer, line: str) -> str:
    question, was_cut = cut(line, MAX_QUESTION_CHARS)
    language = detect_language(question)
    if not question:
        return texts.HELP
    try:
        result = await answerer.answer(question)
    except GenerationError as error:
        logger.warning("chat model failed: %s", error)
        return model_failure_text(language)
    except Exception:
        # The console's one place (bot.answering's for the chat platforms): the operator gets
        # the one human sentence and the chat goes on; the traceback is in the log.
        logger.exception("answering failed")
        return model_failure_text(language)
    lines = []
    if was_cut:
        lines.append(texts.QUESTION_CUT[language].format(limit=MAX_QUESTION_CHARS))
    lines.append(render_plain(result, language))
    if isinstance(result, Unverified):
        # Only the operator sees this: in Slack the draft goes to reviewers, not the asker.
        lines.append("  [unverified draft, not shown to Slack users]")
        lines.append("  " + result.draft.replace("\n", "\n  "))
        lines += [f"  - {problem.message}" for problem in result.problems]
    return "\n".join(lines)


async def chat(answerer: Answerer, stdin: TextIO, stdout: TextIO, *, greeting: str) -> int:
    interactive = stdin.isatty()
    print(greeting, file=stdout, flush=True)
    while True:
        if interactive:
            print("> ", end="", file=stdout, flush=True)
        line = await asyncio.to_thread(stdin.readline)
        if not line:  # EOF: Ctrl-D or the end of piped input
            if interactive:
                print(file=stdout)
            return 0
        if not line.strip() and not interactive:
            continue
        print(await answer_line(answerer, line), file=stdout, flush=True)
