"""Greetings and thanks get a courteous line in the asker's language, never the refusal
sentence, and never reach the pipeline (so ``rag report`` counts no unanswered question)."""

from __future__ import annotations

import pytest

from bot.answering import Answering
from bot.conversation import Conversation, Conversations
from bot.courtesy import courtesy, courtesy_reply
from bot.ports import Origin
from rag.messages import refusal_text
from rag.results import Refusal
from tests.bot.test_answering import _Answerer, _Thread


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("hello", "greeting"),
        ("Hello!", "greeting"),
        ("hi there", "greeting"),
        ("Good morning, everyone", "greeting"),
        ("你好", "greeting"),
        ("您好！", "greeting"),
        ("在吗？", "greeting"),
        ("thanks", "thanks"),
        ("Thank you so much!", "thanks"),
        ("谢谢！", "thanks"),
        ("多谢 👍", "thanks"),
        ("ok", "ok"),
        ("👍", "ok"),
    ],
)
def test_messages_that_ask_nothing_are_told_apart(text: str, kind: str) -> None:
    assert courtesy(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "你好，退费怎么算？",
        "hello, how are refunds calculated?",
        "Hi, how many days of annual leave do I get",
        "年假有几天",
        "there",
        "everyone",
        "hi 2026",
    ],
)
def test_a_message_with_a_question_in_it_is_a_question(text: str) -> None:
    assert courtesy(text) is None


def _origin(text: str, channel_type: str = "im") -> Origin:
    return Origin("c1", "t1", "m1", "u1", channel_type, text, "all")


@pytest.mark.parametrize(
    ("text", "language", "kind"),
    [
        ("hello", "en", "greeting"),
        ("你好", "zh", "greeting"),
        ("thanks", "en", "thanks"),
        ("谢谢", "zh", "thanks"),
    ],
)
@pytest.mark.parametrize("channel_type", ["im", "channel", "console"])
async def test_a_greeting_or_thanks_gets_a_courteous_line_and_no_pipeline(
    text: str, language: str, kind: str, channel_type: str
) -> None:
    answerer = _Answerer(Refusal(text, refusal_text("en"), ()))
    thread = _Thread()
    await Answering(answerer).answer("e1", _origin(text, channel_type), thread)
    assert answerer.questions == []  # not searched, not recorded for `rag report`
    assert thread.shown == ["reply"]  # no "looking it up" note either
    [reply] = thread.replies
    assert reply.language == language
    assert reply.text == courtesy_reply(kind, language)  # type: ignore[arg-type]
    assert refusal_text("zh") not in reply.text
    assert refusal_text("en") not in reply.text


def test_the_lines_are_in_the_askers_language() -> None:
    assert courtesy_reply("greeting", "zh").startswith("你好！")
    assert courtesy_reply("greeting", "en").startswith("Hello!")
    assert courtesy_reply("thanks", "zh") == "不客气！还有问题随时问我。"
    assert courtesy_reply("thanks", "en").startswith("You're welcome")
    assert courtesy_reply("ok", "en") == courtesy_reply("greeting", "en")


async def _after_an_answer(text: str, channel_type: str) -> _Thread:
    conversations = Conversations(None)
    conversation = Conversation.thread("c1", "t1")
    await conversations.add(conversation, "退费怎么算？")
    answering = Answering(_Answerer(RuntimeError("not asked")), conversations=conversations)
    thread = _Thread()
    await answering.answer("e2", _origin(text, channel_type), thread, conversation)
    return thread


async def test_thanks_in_a_shared_thread_the_bot_answered_get_no_reply() -> None:
    # People close the exchange, maybe with each other: the bot stays out of it.
    for text in ("谢谢！", "hello", "ok 👍"):
        assert (await _after_an_answer(text, "channel")).shown == []


async def test_thanks_in_a_dm_after_an_answer_get_you_are_welcome() -> None:
    thread = await _after_an_answer("谢谢！", "im")
    assert [reply.text for reply in thread.replies] == [courtesy_reply("thanks", "zh")]
    assert (await _after_an_answer("ok", "im")).shown == []  # an ok needs nothing back
