"""The local console chat: the same pipeline and renderer as Slack, without Slack.

``python -m bot`` without SLACK_BOT_TOKEN lands here, so anyone can try the bot over docs/ in
a terminal. It also reads piped questions (``printf '退费怎么算\\n' | python -m bot``): one
answer per line, no prompt when stdin is not a terminal.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TextIO

from bot import texts
from bot.plain import render_plain
from bot.ports import Answerer
from bot.text import cut
from rag import MAX_QUESTION_CHARS, GenerationError, Unverified, detect_language, model_failure_text

logger = logging.getLogger(__name__)


def banner(*, docs_dir: str, chunks: int, chat_model: str) -> str:
    return (
        f"No SLACK_BOT_TOKEN: local console chat over {docs_dir}/ ({chunks} passages, "
        f"chat model: {chat_model}); Ctrl-D to quit"
    )


async def answer_line(answerer: Answerer, line: str) -> str:
    question, was_cut = cut(line.strip(), MAX_QUESTION_CHARS)
    language = detect_language(question)
    if not question:
        return texts.HELP
    try:
        result = await answerer.answer(question)
    except GenerationError as error:
        logger.warning("chat model failed: %s", error)
        return model_failure_text(language)
    except Exception:
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
        lines += [f"  - {problem}" for problem in result.problems]
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
