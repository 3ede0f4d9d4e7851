"""Which Feishu messages are questions for the bot, and how their text reads."""

from __future__ import annotations

import json
from typing import Any

from bot.feishu.messages import question

BOT = "ou_bot"


def _event(
    content: dict[str, Any],
    *,
    chat_type: str = "group",
    mentions: list[dict[str, Any]] | None = None,
    message_type: str = "text",
    sender: str = "ou_asker",
    sender_type: str = "user",
) -> dict[str, Any]:
    return {
        "schema": "2.0",
        "header": {"event_id": "ev1", "event_type": "im.message.receive_v1"},
        "event": {
            "sender": {"sender_id": {"open_id": sender}, "sender_type": sender_type},
            "message": {
                "message_id": "om_1",
                "root_id": "",
                "chat_id": "oc_1",
                "chat_type": chat_type,
                "message_type": message_type,
                "content": json.dumps(content, ensure_ascii=False),
                "mentions": mentions or [],
            },
        },
    }


def _mention(key: str, open_id: str, name: str) -> dict[str, Any]:
    return {"key": key, "id": {"open_id": open_id}, "name": name}


def test_a_group_question_with_the_bots_mention_is_answered_without_it() -> None:
    event = _event({"text": "@_user_1 退费怎么算？"}, mentions=[_mention("@_user_1", BOT, "x")])
    asked = question(event, BOT)
    assert asked is not None
    assert (asked.text, asked.chat_id, asked.message_id, asked.sender) == (
        "退费怎么算？",
        "oc_1",
        "om_1",
        "ou_asker",
    )


def test_a_group_message_without_the_bots_mention_is_ignored() -> None:
    mentions = [_mention("@_user_1", "ou_other", "citebot")]  # same display name, another id
    assert question(_event({"text": "@_user_1 hi"}, mentions=mentions), BOT) is None
    assert question(_event({"text": "@_all 退费怎么算？"}), BOT) is None


def test_other_mentions_become_names_and_all_is_dropped() -> None:
    mentions = [_mention("@_user_1", BOT, "citebot"), _mention("@_user_2", "ou_w", "王芳")]
    event = _event({"text": "@_user_1 @_all 问一下 @_user_2 的假期"}, mentions=mentions)
    asked = question(event, BOT)
    assert asked is not None
    assert asked.text == "问一下 王芳 的假期"


def test_every_p2p_message_is_a_question() -> None:
    asked = question(_event({"text": "How are refunds calculated?"}, chat_type="p2p"), BOT)
    assert asked is not None
    assert asked.chat_type == "p2p"


def test_a_post_reads_as_its_title_and_paragraphs() -> None:
    post = {
        "title": "退费",
        "content": [
            [{"tag": "at", "user_id": "@_user_1", "user_name": "citebot"}],
            [{"tag": "text", "text": "剩余课时"}, {"tag": "a", "text": "怎么算", "href": "x"}],
            [{"tag": "img", "image_key": "img_1"}],
        ],
    }
    event = _event(post, message_type="post", mentions=[_mention("@_user_1", BOT, "citebot")])
    asked = question(event, BOT)
    assert asked is not None
    assert asked.text == "退费\n剩余课时怎么算"


def test_bots_own_messages_and_other_types_are_ignored() -> None:
    assert question(_event({"text": "hi"}, chat_type="p2p", sender=BOT), BOT) is None
    assert question(_event({"text": "hi"}, chat_type="p2p", sender_type="app"), BOT) is None
    image = _event({"image_key": "img"}, chat_type="p2p", message_type="image")
    assert question(image, BOT) is None


def test_broken_content_is_ignored() -> None:
    event = _event({}, chat_type="p2p")
    event["event"]["message"]["content"] = "not json"
    assert question(event, BOT) is None
