"""The local console chat: the same pipeline and renderer as Slack, without Slack.

``python -m bot`` without SLACK_BOT_TOKEN lands here, so anyone can try the bot over docs/ in
a terminal. It also reads piped questions (``printf '退费怎么算\\n' | python -m bot``): one
answer per line, each question echoed after a ``> `` before its answer (there is no prompt
and no typing to see when stdin is not a terminal). Replies are plain text with the same
content as the Slack reply: the answer, the sources it cites with file, heading path, link and
score, and where a cached or reviewed answer came from. Each line is answered by the same
neutral core as a Slack or Feishu question (:mod:`bot.answering`): the console is one more
platform edge, implementing the asker's thread (printed lines) and the review hooks (the
operator sees the unverified draft).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from datetime import UTC, datetime
from typing import TextIO

from bot import texts
from bot.answering import Answering
from bot.conversation import Conversation, Conversations
from bot.ports import Answerer, Origin, Reply
from bot.relevance import relevance
from bot.sources import dated
from rag import (
    EVERYTHING,
    Answer,
    Language,
    Provenance,
    Refusal,
    Rewriter,
    Stage,
    Unverified,
    model_failure_text,
)

NOT_RECORDED = (
    "Questions asked here are not recorded for `python -m rag report` (the Slack and Feishu "
    "bots' are)."
)
"""Said at the start: an operator trying questions should not look for them in the report."""


def banner(*, docs_dir: str, chunks: int, chat_model: str) -> str:
    return (
        f"No SLACK_BOT_TOKEN: local console chat over {docs_dir}/ ({chunks} passages, "
        f"chat model: {chat_model}); Ctrl-D to quit\n{NOT_RECORDED}"
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


def render_plain(result: Answer | Refusal, language: Language) -> str:
    lines = [result.text]
    if isinstance(result, Answer):
        for n in result.cited:
            hit = result.hits[n - 1]
            chunk = hit.chunk
            where = " › ".join(part for part in (chunk.source, chunk.heading_path) if part)
            link = f"  {chunk.link}" if chunk.link else ""
            score = f"{texts.SOURCE_SCORE[language]} {relevance(hit.score)}"
            when = dated(chunk, language)
            about = f"{score}, {when}" if when else score
            lines.append(f"  [{n}] {chunk.title or chunk.source} — {where} ({about}){link}")
    if not isinstance(result, Refusal) or result.provenance != Provenance():
        line = provenance_text(result.provenance, language)
        if line:
            lines.append(f"  ({line})")
    return "\n".join(lines)


class _Lines:
    """The asker's thread (:class:`bot.ports.AskerThread`) on a terminal: what one question
    prints. There is no progress to show: the answer follows on the next line."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    async def working(self, language: Language) -> None:
        pass

    def reached(self, stage: Stage, language: Language) -> None:
        pass

    async def reply(self, reply: Reply) -> int:
        if reply.notice:
            self.lines.append(reply.notice)
        result = reply.result
        if reply.in_review:  # "you'll get the reply here" would never come true in a terminal
            self.lines.append(texts.UNVERIFIED_CONSOLE[reply.language])
        elif result is None:
            self.lines.append(reply.text)
        else:
            self.lines.append(render_plain(result, reply.language))
        return 1

    async def failed(self, language: Language) -> None:
        self.lines.append(model_failure_text(language))


class _Operator:
    """The console's review desk (:class:`bot.ports.ReviewHooks`) is its operator: a draft that
    failed the citation check is printed under the honest note (in Slack it goes to reviewers,
    never to the asker), and a refusal offers no "Ask a human" button."""

    def __init__(self) -> None:
        self.drafts: dict[str, Unverified] = {}

    async def submit_unverified(self, result: Unverified, origin: Origin) -> None:
        self.drafts[origin.message_ts] = result

    def ask_human_ticket(self, result: Refusal, origin: Origin) -> None:
        return None


def _draft_lines(result: Unverified) -> list[str]:
    return [
        "  [unverified draft, not shown to Slack users]",
        "  " + result.draft.replace("\n", "\n  "),
        *(f"  - {problem.message}" for problem in result.problems),
    ]


class Console:
    """One terminal asker: each line goes through :class:`bot.answering.Answering`, as a Slack
    or Feishu question does, so an unexpected failure is logged there once and printed as the
    same one human sentence. The session is one conversation, as a Slack thread is: "那商务级
    呢？" after "流利级多少钱？" asks about 商务级's price, and "thanks" needs no answer."""

    def __init__(self, answerer: Answerer, *, rewriter: Rewriter | None = None) -> None:
        self.operator = _Operator()
        self.answering = Answering(
            answerer, review=self.operator, conversations=Conversations(None), rewriter=rewriter
        )
        self.conversation = Conversation.thread("console", "session")
        self.asked = 0

    async def answer_line(self, line: str) -> str:
        self.asked += 1
        ts = str(self.asked)
        origin = Origin(
            channel="console",
            thread_ts=ts,
            message_ts=ts,
            user="console",
            channel_type="console",
            question=line,
            scope=EVERYTHING.key,  # an operator at the command line sees every document
        )
        thread = _Lines()
        await self.answering.answer(f"console:{ts}", origin, thread, self.conversation)
        draft = self.operator.drafts.pop(ts, None)
        lines = thread.lines + (_draft_lines(draft) if draft else [])
        return "\n".join(lines)


async def read_line(stdin: TextIO) -> str:
    """One line of ``stdin``, read on a daemon thread: a thread blocked in ``readline`` must
    not keep the process alive after Ctrl-C (``asyncio.to_thread``'s would, until Enter)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[str] = loop.create_future()

    def settle(line: str | None, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(line or "")

    def read() -> None:
        try:
            line, error = stdin.readline(), None
        except (OSError, ValueError) as failed:
            line, error = None, failed
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits
            loop.call_soon_threadsafe(settle, line, error)

    threading.Thread(target=read, name="citebot-console-stdin", daemon=True).start()
    return await done


async def chat(
    answerer: Answerer,
    stdin: TextIO,
    stdout: TextIO,
    *,
    greeting: str,
    rewriter: Rewriter | None = None,
) -> int:
    console = Console(answerer, rewriter=rewriter)
    interactive = stdin.isatty()
    print(greeting, file=stdout, flush=True)
    while True:
        if interactive:
            print("> ", end="", file=stdout, flush=True)
        line = await read_line(stdin)
        if not line:  # EOF: Ctrl-D or the end of piped input
            if interactive:
                print(file=stdout)
            return 0
        if not line.strip() and not interactive:
            continue
        if not interactive:  # piped: show which answer belongs to which question
            print(f"> {line.strip()}", file=stdout, flush=True)
        reply = await console.answer_line(line)
        if reply:  # small talk after an answer ("谢谢") gets none, as in a thread
            print(reply, file=stdout, flush=True)
