"""A follow-up made standalone by rules, without a model: ``那商务级呢？`` after
``流利级的课程费是多少？`` becomes ``商务级的课程费是多少？``.

Retrieval, the cache key and the review card all need a question that stands on its own. People
continue a conversation with a few recurring shapes, and only those are rewritten; anything else
is a question of its own and is left exactly as asked (so a change of topic never inherits the
previous one):

- *substitution* — ``那商务级呢？``, ``工作满五年的呢？``, ``What about flights?``,
  ``And in all other cities?``: the new thing takes the place of its counterpart in the previous
  question (the span that shares its head: 流利级 ↔ 商务级, annual leave ↔ sick leave); without a
  counterpart, it is added to the previous question;
- *more* — ``还有呢？``, ``What else?``: the previous question again;
- *condition* — ``如果只剩 1 课时呢？``, ``What if I submit it after 90 days?``: the previous
  question with the condition;
- *short reference* — ``最多几天？``, ``Do I need receipts for it?``: a short question with a
  pronoun or without a subject of its own is read together with the previous question;
- *a thing named in Latin letters* — ``那签出来的 token 默认多久过期？`` after ``jwt-auth 默认用啥
  算法签名？``: Chinese questions about software name it in Latin letters (plugins, settings,
  products); a follow-up that opens as a continuation (那, 它, 如果, 除了…) or names nothing in
  Latin letters of its own is asked about the things the previous question named.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.language import detect_language, is_ideograph

_ZH_END = "？?。！!～~ "
_EN_END = "?.! "

_ZH_MORE = re.compile(r"^(?:那|那么)?(?:还有|还有呢|还有吗|还有别的吗|其他呢|别的呢|然后呢)$")
_ZH_CONDITION = re.compile(r"^(?:那|那么)?(?:如果|要是|假如)(?P<cond>.+?)(?:的话)?(?:呢|怎么办)?$")
_ZH_SUBSTITUTE = re.compile(r"^(?:那|那么|换成)?(?P<thing>.+?)(?:的)?呢$")
_EN_MORE = re.compile(r"^(?:and |so )?(?:what|anything) else$", re.IGNORECASE)
_EN_CONDITION = re.compile(r"^(?:and |but |so )?(?:what )?if (?P<cond>.+)$", re.IGNORECASE)
_EN_SUBSTITUTE = re.compile(
    r"^(?:(?:and|so|but) )?(?:(?:what|how) about|and) (?:for |in |on |with |the )?(?P<thing>.+)$",
    re.IGNORECASE,
)
_EN_REFERENCE = re.compile(r"\b(?:it|its|this|that|these|those|them|they|there)\b", re.IGNORECASE)

SHORT_ZH = 10
"""A Chinese follow-up this short (characters) with a reference word leans on the last turn."""
SHORT_EN = 16
"""An English follow-up of at most this many words with a pronoun leans on the last turn (in a
thread, "does it renew by itself next year or do i have to sign up again" is about the last
question's subject)."""


def standalone(message: str, history: Sequence[str]) -> str:
    """``message`` as a question that stands on its own, given the earlier standalone questions
    of the same conversation (oldest first). Returns ``message`` itself when it needs no context.
    """
    message = message.strip()
    if not history or not message:
        return message
    previous = history[-1].strip()
    language = detect_language(message)
    if detect_language(previous) != language:
        # Rules splice words of one question into the other ("what if it goes boom?" after
        # "爆炸了怎么办" read as "爆炸了怎么办 if it goes boom?"); across languages only a chat
        # model can.
        return message
    if language == "zh":
        return _zh(message, previous) or message
    return _en(message, previous) or message


def _zh(message: str, previous: str) -> str | None:
    body = message.rstrip(_ZH_END)
    if _ZH_MORE.match(body):
        return previous
    condition = _ZH_CONDITION.match(body)
    if condition:
        return f"{previous.rstrip(_ZH_END)}，如果{condition['cond']}？"
    substitute = _ZH_SUBSTITUTE.match(body)
    if substitute:
        rewritten = _substitute_zh(substitute["thing"], previous)
        if rewritten is not None:
            return rewritten
    if _leans_on_previous_zh(body):
        return f"{previous.rstrip(_ZH_END)}，{message}"
    return _with_names(message, previous)


_LATIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]")
_ZH_CONTINUES = re.compile(r"^(?:那|那么|它|这样|这个|那个|如果|要是|另外|除了)")


def _with_names(message: str, previous: str) -> str | None:
    """``message`` asked about what ``previous`` named in Latin letters and ``message`` does not
    (``jwt-auth 那签出来的 token 默认多久过期？``), when it continues the last turn: it opens as a
    continuation or names nothing in Latin letters of its own."""
    own = {name.lower() for name in _LATIN_NAME.findall(message)}
    names = [n for n in dict.fromkeys(_LATIN_NAME.findall(previous)) if n.lower() not in own]
    if not names or (own and not _ZH_CONTINUES.match(message)):
        return None
    return f"{' '.join(names)} {message}"


def _en(message: str, previous: str) -> str | None:
    body = message.rstrip(_EN_END)
    if _EN_MORE.match(body):
        return previous
    condition = _EN_CONDITION.match(body)
    if condition:
        return f"{previous.rstrip(_EN_END)} if {condition['cond']}?"
    substitute = _EN_SUBSTITUTE.match(body)
    if substitute:
        rewritten = _substitute_en(substitute["thing"], previous)
        if rewritten is not None:
            return rewritten
    if len(body.split()) <= SHORT_EN and _EN_REFERENCE.search(body):
        return f"{previous.rstrip(_EN_END)}: {message}"
    return None


_ZH_FUNCTION = re.compile(
    r"怎么样|怎么|怎样|如何|多少|多久|多长|什么|哪些|哪个|哪里|是否|能否|可以|需要|应该|"
    r"还有|有|是|的|了|吗|呢|吧|要|能|会|该|几|哪|谁|在|和|与|或"
)
"""Question and function words: a span holding one is not a name of something (流利级 is,
有几天年 is not), and the topic of a question ends before the first one."""
_ZH_QUESTION = re.compile(r"怎么|怎样|如何|多少|多久|多长|什么|哪|几|吗|是否|能否|为什么")
_ZH_REFERENCE_WORDS = re.compile(
    r"它们|它|这个|那个|这些|那些|该|其|此|那么|那|最多|最少|最低|最高"
)
MAX_OWN_SUBJECT = 2
"""A short question leans on the last turn when, without its question, reference and function
words, at most this many characters of its own are left (最多几天 -> none; 那分级测试要多久 ->
分级测试, a subject of its own)."""


def _leans_on_previous_zh(body: str) -> bool:
    if len(body) > SHORT_ZH:
        return False
    own = _ZH_FUNCTION.sub("", _ZH_QUESTION.sub("", _ZH_REFERENCE_WORDS.sub("", body)))
    own = "".join(char for char in own if is_ideograph(char))
    return len(own) <= MAX_OWN_SUBJECT


def _substitute_zh(thing: str, previous: str) -> str | None:
    """Each part of ``thing`` (split at 的) takes the place of its counterpart in ``previous``
    (the span as long as it, ending in the same character, holding no function word: 流利级 ↔
    商务级, 课程费 ↔ 教材费), else of the previous question's topic (its leading words: 退费怎么算
    -> 转班怎么算); ``None`` when ``thing`` is itself a question."""
    if _ZH_QUESTION.search(thing):
        return None
    result = previous
    for part in (p for p in thing.split("的") if p):
        span = _zh_counterpart(part, result) or _zh_topic(result)
        if span is None or part in result:
            result = f"{part}，{result}"
        else:
            start, end = span
            result = result[:start] + part + result[end:]
    return result


def _zh_counterpart(part: str, text: str) -> tuple[int, int] | None:
    last = part[-1]
    if not is_ideograph(last):
        return None
    for match in re.finditer(re.escape(last), text):
        start = max(match.end() - len(part), 0)
        # A shorter run counts when it starts a word: 工作日 for 法定节假日 in 工作日加班工资.
        while start < match.start() and not _starts_word(text, start):
            start += 1
        span = text[start : match.end()]
        if len(span) > 1 and all(map(is_ideograph, span)) and not _ZH_FUNCTION.search(span):
            return start, match.end()
    return None


def _starts_word(text: str, index: int) -> bool:
    if index == 0 or not is_ideograph(text[index - 1]):
        return True
    return _ZH_FUNCTION.match(text, index - 1) is not None


def _zh_topic(text: str) -> tuple[int, int] | None:
    stop = _ZH_FUNCTION.search(text)
    end = stop.start() if stop else 0
    topic = text[:end]
    if not topic or not all(map(is_ideograph, topic)):
        return None
    return 0, end


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d[\d,.:]*")
_EN_CLAUSE = re.compile(
    r"\b(?:what|when|where|who|why|how|which|is|are|was|were|do|does|did|can|could|must|"
    r"should|will|would|may|might|shall|have|has)\b",
    re.IGNORECASE,
)
"""A thing with a verb or a question word of its own is a question, not a substitution."""
_EN_SKIP = frozenset({"of", "the", "a", "an", "for", "in", "on", "to", "my", "your", "our", "at"})


def _substitute_en(thing: str, previous: str) -> str | None:
    """``thing`` takes the place of the words of ``previous`` that end in its head word (annual
    leave ↔ sick leave), else of the last capitalised name (Beijing ↔ other provincial
    capitals); otherwise the previous question is asked about ``thing``. ``None`` when ``thing``
    is itself a question."""
    if _EN_CLAUSE.search(thing):
        return None
    words = list(_WORD.finditer(previous))
    size = len(thing.split())
    head = thing.split()[-1].lower()
    for index, word in enumerate(words):
        if word.group().lower() == head and thing.lower() not in previous.lower():
            first = max(0, index - size + 1)
            while first < index and words[first].group().lower() in _EN_SKIP:
                first += 1
            return previous[: words[first].start()] + thing + previous[word.end() :]
    names = [word for word in words[1:] if word.group()[:1].isupper() and word.group() != "I"]
    if names:
        return previous[: names[-1].start()] + thing + previous[names[-1].end() :]
    return f"{previous.rstrip(_EN_END)} — {thing}?"
