"""What a question asks for, and whether a sentence holds one.

"who sings at the beginning of nice for what" wants a name, "口语课一共有几级？" an amount of
级, "when do the ducks march" a time, "where is the dead sea" a place, "how do I get a monitor"
steps. A sentence that shares the question's words but holds no such thing talks about the
topic without answering it ("West sings …" beside "… features Big Freedia"); the offline answerer
prefers the one that does (:mod:`rag.generate.extractive`).

What counts is something the question does not already say: "cut at 40 min" is not answered
by a sentence whose only number is 40, "who played Greg's mom" not by one naming only Greg.

The readings are surface patterns, the same for every corpus: numbers and dates, capitalised
names in English, transliterated names (``马库斯·温克霍克``) and place suffixes in Chinese, list
items and commands for steps. They miss some (a Chinese name without a dot is not found); a
miss only withholds a preference, it never hides a sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rag.language import IDEOGRAPHS
from rag.reading import EN_STOPWORDS, english_stems

Kind = Literal["amount", "formula", "time", "person", "place", "steps"]

_ASKS: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    (
        "amount",
        re.compile(
            r"多少|几|多久|多长|多大|多高|多远|多重|"
            r"\bhow (?:much|many|long|often|far|big|large|old)\b|\bwhat (?:percentage|size)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "formula",
        re.compile(
            r"(?:怎么|如何|怎样)(?:计)?算|计算方法|计算公式|"
            r"\bhow (?:is|are|do|does)\b.*\b(?:calculated?|computed?|worked out)\b|\bformula\b",
            re.IGNORECASE,
        ),
    ),
    (
        "time",
        re.compile(
            r"什么时候|何时|哪一?年|哪天|哪一天|几月|几号|什么时间|"
            r"\bwhen\b|\bwhat (?:year|date|day|month|time)\b",
            re.IGNORECASE,
        ),
    ),
    ("person", re.compile(r"谁|哪位|\bwho(?:m|se)?\b", re.IGNORECASE)),
    ("place", re.compile(r"哪里|哪儿|在哪|什么地方|\bwhere\b", re.IGNORECASE)),
    (
        "steps",
        re.compile(
            r"(?:怎么|怎样|如何|咋)(?!算|计算|样|回事)|"
            r"\bhow (?:do|can|should|would|could|does) (?:i|we|you|one|someone)\b|\bhow to\b",
            re.IGNORECASE,
        ),
    ),
)

_ZH_UNIT = re.compile(rf"(?:几|多少)个?(?P<unit>[{IDEOGRAPHS}])")
_EN_UNIT = re.compile(r"\bhow many (?P<unit>[a-z]+)", re.IGNORECASE)
_NOT_UNITS = frozenset("钱人次种些")
"""What follows 多少/几 without being a unit a number stands beside (多少钱 is "… 元")."""
UNIT_REACH = 4
"""Characters between a number and its unit ("四个级别", "15 working days" read by word)."""
_SAME_UNIT = {
    "天": "天日",
    "日": "天日",
    "周": "周星礼",
    "星": "周星礼",
    "块": "块元",
    "元": "元块",
}
"""Units written either way: 几天 is answered in 工作日, 几周 in 星期 or 礼拜, 多少块 in 元."""

_FORMULA = re.compile(r"\S\s*[=×÷]\s*\S|\d\s*[%％]|百分之|\d\s*倍")
"""How an amount is worked out: a formula ("退费金额 = 实付课程费 × …") or a rate ("150%")."""
_NUMBER = re.compile(
    r"\d+(?:[.,]\d+)*|[零〇一二两三四五六七八九十百千万]+(?=\s*[个位级节次天周月年元课小%倍份条])"
)
_EN_TIME = re.compile(
    r"\b(?:1[0-9]{3}|20[0-9]{2})s?\b|\b\d{1,2}\s*:\s*\d{2}\b|\b[ap]\.m\.|\bcentur(?:y|ies)\b|"
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|Monday|Tuesday|Wednesday|"
    r"Thursday|Friday|Saturday|Sunday)\b"
)
_ZH_TIME = re.compile(
    r"\d+\s*(?:年|月|日|号|世纪|点|时)|[〇零一二三四五六七八九十]{1,4}(?:年|月|日|世纪)|"
    r"年代|星期|周[一二三四五六日末]|[上下]午|凌晨|\d{1,2}\s*[:：]\s*\d{2}|朝|时期"
)
_EN_NAME = re.compile(
    r"(?:[A-Z][\w'’-]*|[A-Z]\.)(?:\s+(?:[A-Z][\w'’-]*|[A-Z]\.|(?:de|da|van|von|del|di|la|le)"
    r"(?=\s+[A-Z])))+"
)
"""Two or more capitalised words in a row: "Big Freedia", "J. K. Rowling", "Lake Havasu City"."""
_ZH_NAME = re.compile(rf"[{IDEOGRAPHS}]{{1,5}}[·・．][{IDEOGRAPHS}]{{1,6}}")
"""A transliterated name: "马库斯·温克霍克"."""
_EN_PLACE = re.compile(r"\b(?:in|at|near|from|outside|inside)\s+(?:the\s+|\d+\s+)?([A-Z][\w'’-]+)")
_ZH_PLACE = re.compile(
    rf"[{IDEOGRAPHS}]{{1,6}}(?:省|市|县|州|国|岛|洲|湾|镇|村|港|区)(?:[^{IDEOGRAPHS}]|[的境内])"
    r"|位于|分布|坐落|地处|产于"
)
_ADDRESS = re.compile(
    r"[\w.+-]+@[\w-]+\.[\w.-]+|\bhttps?://\S+|\b[\w-]+(?:\.[\w-]+)+/\S*|`[^`\n]*/[^`\n]*`"
)
"""An email address, a URL, a path: where to send, find or put something in documentation."""
_STEP_TEXT = re.compile(r"`[^`\n]+`|^\s*[$#>]\s|→|\s>\s")
"""A command or a menu path in a sentence: what a how-to answer quotes."""
_NOT_VERBS = (
    "the a an this that these those it its they you we i he she if when once after before all "
    "some most each every there here in on at for to from by with as but and or so also during "
    "since until while within without under over between through per our your their my no not"
)
_EN_IMPERATIVE = re.compile(
    rf"^\W*(?:please\s+)?(?!(?:{'|'.join(_NOT_VERBS.split())})\b)[A-Za-z]+(?<![^s]s)\s+"
    r"(?:a|an|the|your|to|on|in|into|with|for|from|at|this|that|it|them|all|any|up|out|off|"
    r"each|one|\w+ing|[`\"'*_(\[“])(?:\b|\B)",
    re.IGNORECASE,
)
"""An instruction: a sentence opening with a verb ("Submit a request…", "Try cleaning…",
"Enter `gsa.zoomgov.com`", "Refer to **Hire NTE Dt**"): the first word is no article,
pronoun, preposition or plural ("Employees in…"), the next an article, preposition, pronoun,
-ing form or quoted text."""


def asked_for(question: str) -> frozenset[Kind]:
    """What ``question`` asks for (none for "what is X", "why …", a yes/no question)."""
    return frozenset(kind for kind, pattern in _ASKS if pattern.search(question))


@dataclass(frozen=True, slots=True)
class Asked:
    """A question's asked-for kinds, with what it already says (its numbers and words)."""

    kinds: frozenset[Kind]
    unit: str | None
    said_numbers: frozenset[str]
    said_words: frozenset[str]

    @classmethod
    def of(cls, question: str) -> Asked:
        zh = _ZH_UNIT.search(question)
        en = _EN_UNIT.search(question)
        unit = zh.group("unit") if zh and zh.group("unit") not in _NOT_UNITS else None
        if unit is None and en is not None:
            unit = english_stems([en.group("unit").lower()])[0]
        return cls(
            kinds=asked_for(question),
            unit=unit,
            said_numbers=frozenset(_NUMBER.findall(question)),
            said_words=frozenset(w.lower() for w in re.findall(r"[\w'’-]+", question)),
        )

    def held(self, sentence: str, *, steps: bool = False, unit: bool = True) -> frozenset[Kind]:
        """The kinds asked for that ``sentence`` holds something new of. ``steps``: the
        sentence is a list item or brings a list (a how-to answer's shape). ``unit``: an
        amount must stand beside the unit asked for ("几级" -> "四个级别"); the caller passes
        False when no sentence has the unit, so any number counts."""
        found: set[Kind] = set()
        if "amount" in self.kinds and self._amount(sentence, unit=unit):
            found.add("amount")
        if "formula" in self.kinds and _FORMULA.search(sentence):
            found.add("formula")
        if "time" in self.kinds and self._new(_EN_TIME, sentence) | self._new(_ZH_TIME, sentence):
            found.add("time")
        if "person" in self.kinds and (self._names(sentence) or _ZH_NAME.search(sentence)):
            found.add("person")
        if "place" in self.kinds and self._place(sentence):
            found.add("place")
        instruction = _STEP_TEXT.search(sentence) or _EN_IMPERATIVE.match(sentence)
        if "steps" in self.kinds and (steps or instruction):
            found.add("steps")
        return frozenset(found)

    def has_unit(self, sentence: str) -> bool:
        """Whether a number stands beside the asked unit in ``sentence``."""
        return self.unit is not None and self._amount(sentence, unit=True)

    def _amount(self, sentence: str, *, unit: bool) -> bool:
        for match in _NUMBER.finditer(sentence):
            if match.group() in self.said_numbers:
                continue
            if not unit or self.unit is None:
                return True
            after = sentence[match.end() : match.end() + UNIT_REACH + len(self.unit) + 8]
            if self.unit.isascii():
                words = re.findall(r"[a-z]+", after.lower())[:2]
                if self.unit in english_stems(words):
                    return True
            elif any(u in after[: UNIT_REACH + 1] for u in _SAME_UNIT.get(self.unit, self.unit)):
                return True
        return False

    def _new(self, pattern: re.Pattern[str], sentence: str) -> bool:
        return any(m.group().lower() not in self.said_words for m in pattern.finditer(sentence))

    def _names(self, sentence: str) -> bool:
        for match in _EN_NAME.finditer(sentence):
            words = [w.lower() for w in match.group().split()]
            if any(w not in self.said_words and w not in EN_STOPWORDS for w in words):
                return True
        return False

    def _place(self, sentence: str) -> bool:
        if _ZH_PLACE.search(sentence) or _ADDRESS.search(sentence):
            return True
        return any(m.group(1).lower() not in self.said_words for m in _EN_PLACE.finditer(sentence))
