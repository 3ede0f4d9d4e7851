"""On ``docs/``, in full mode and in the first minutes alike: what the documents don't say is
refused without calling a configured model; the README's examples are answered from their own
document only; ``转班怎么算？`` and the follow-up ``那转班呢？`` are answered from the section on
transfers. The bot runs as ``python -m bot`` composes it, with the bundled e5."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest

from tests.fakes.openai_fixture import openai_server
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.fakes.slack_api import FakeSlackApi
from tests.scenarios.harness import CHANNEL, RunningBot, bot_env, envelope, mention
from tests.scenarios.phases import PHASES, docs_env, serving

__all__ = ["openai_server"]

REFUSED = ("这件事资料里没写", "Our documents don't cover this")


async def ask(
    bot: RunningBot, slack: FakeSlackApi, question: str, *, thread_ts: str | None = None
) -> tuple[str, str, list[str]]:
    """The reply's text, the question's ts and the files its citation buttons open."""
    event = mention(question, ts=f"{time.time():.6f}")
    if thread_ts is not None:
        event["thread_ts"] = thread_ts
    await bot.send(envelope(event, event_id=f"Ev{uuid.uuid4().hex[:12]}"))
    await bot.idle()
    root = thread_ts or event["ts"]
    await slack.wait_until(
        lambda: any(m.ts > event["ts"] for m in slack.thread(CHANNEL, root)), within=20
    )
    reply = [m for m in slack.thread(CHANNEL, root) if m.ts > event["ts"]][-1]
    buttons = [
        element.get("value", "")
        for block in reply.blocks or []
        for element in block.get("elements", [])
        if element.get("type") == "button"
    ]
    return reply.text, event["ts"], buttons


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("question", ["公司的 CEO 是谁？", "你们的雅思保过班多少钱？"])
async def test_what_the_documents_do_not_say_is_refused_without_calling_the_model(
    slack_api: FakeSlackApi,
    openai_server: FakeOpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    e5_env: dict[str, str],
    phase: str,
    question: str,
) -> None:
    openai_server.script(Reply("公司的 CEO 是张三[1]。"))
    model = {"LLM_BASE_URL": openai_server.base_url, "LLM_API_KEY": openai_server.api_key}
    variables = bot_env(slack_api, **docs_env(tmp_path, phase, e5_env, LLM_MODEL="m", **model))
    async with serving(variables, phase, monkeypatch) as bot:
        text, _, _ = await ask(bot, slack_api, question)
    assert text.startswith(REFUSED)
    assert openai_server.requests == []


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize(
    # Question, what its answer must say, the documents about it (the advisor handbook restates
    # the levels; the leave rules are in a Chinese and an English policy).
    ("question", "fact", "documents"),
    [
        ("口语课一共有几级？", "四个级别", ("courses.md", "advisor-handbook.md")),
        ("流利级的课程费是多少？", "4800", ("courses.md",)),
        ("年假有几天？", "15 个工作日", ("hr/attendance-and-overtime.md", "hr/annual-leave.md")),
        ("How often must I change my password?", "Passwords", ("it/acceptable-use.md",)),
        ("退费怎么算？", "退费金额 = 实付课程费", ("refund-and-transfer.md",)),
    ],
)
async def test_the_readme_examples_are_answered_from_their_own_document(
    slack_api: FakeSlackApi,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    e5_env: dict[str, str],
    phase: str,
    question: str,
    fact: str,
    documents: tuple[str, ...],
) -> None:
    variables = bot_env(slack_api, **docs_env(tmp_path, phase, e5_env))
    async with serving(variables, phase, monkeypatch) as bot:
        text, _, buttons = await ask(bot, slack_api, question)
    assert fact in text
    assert buttons, "every answer cites"
    assert all(value.split("|")[-1].split("#")[0] in documents for value in buttons), buttons


@pytest.mark.parametrize("phase", PHASES)
async def test_transfers_are_answered_from_their_section_asked_alone_or_as_a_follow_up(
    slack_api: FakeSlackApi,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    e5_env: dict[str, str],
    phase: str,
) -> None:
    variables = bot_env(slack_api, **docs_env(tmp_path, phase, e5_env))
    async with serving(variables, phase, monkeypatch) as bot:
        alone, _, alone_cites = await ask(bot, slack_api, "转班怎么算？")
        _, ts, _ = await ask(bot, slack_api, "退费怎么算？")
        follow_up, _, follow_up_cites = await ask(bot, slack_api, "那转班呢？", thread_ts=ts)
    for text, cites in ((alone, alone_cites), (follow_up, follow_up_cites)):
        assert "免费转班两次" in text
        assert cites
        assert all("refund-and-transfer.md" in value for value in cites)
