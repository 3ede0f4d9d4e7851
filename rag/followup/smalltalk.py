"""Messages that are not questions: greetings, thanks, ok, emoji.

In a thread the bot has answered, every message from a person reaches it; most are follow-up
questions, some only close the exchange ("谢谢！", "ok 👍", "got it, thanks"). Those get no
answer: a refusal or a quoted passage in reply to "thanks" reads as a bot that didn't listen.
"""

from __future__ import annotations

import re
import unicodedata

_ZH = (
    "你们好|你好呀|你好|您好|大家好|哈喽|嗨|在吗|在不在|早上好|上午好|下午好|晚上好|早安|晚安|"
    "非常感谢|谢谢你|谢谢您|谢谢啦|谢谢|多谢|感谢|辛苦了|辛苦|好的|好滴|好嘞|好吧|好哒|收到|明白了|明白|"
    "了解了|了解|知道了|懂了|可以了|没问题|没事了|行|嗯嗯|嗯|哦哦|哦|噢|哈哈|呵呵|好|棒|赞"
)
_EN = (
    "hello there|hello|hi there|hiya|hi|hey there|hey|howdy|good morning|good afternoon|"
    "good evening|morning|yo|"
    "thank you so much|thank you|thanks a lot|many thanks|thanks|thank|thx|ty|cheers|"
    "got it|okay|ok|k|cool|great|nice|perfect|awesome|understood|sure|alright|all right|"
    "will do|sounds good|makes sense|lol|haha|yes|yep|no worries|np"
)
_SMALL_TALK = re.compile(rf"(?:{_ZH})|\b(?:{_EN})\b", re.IGNORECASE)
_EMOJI_CODE = re.compile(r":[a-z0-9_+\-]+:")
"""Slack writes emoji as :name: in message text."""


def is_small_talk(text: str) -> bool:
    """True when nothing is left of ``text`` once thanks/ok words, emoji and punctuation are
    taken away — a message that closes an exchange rather than asking something."""
    rest = _SMALL_TALK.sub("", _EMOJI_CODE.sub("", unicodedata.normalize("NFKC", text).lower()))
    return not any(unicodedata.category(char)[0] in "LN" for char in rest)
