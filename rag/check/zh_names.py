"""Chinese names in a text, as jieba's part-of-speech tagger finds them.

jieba tags people (``nr``, ``nrfg``, ``nrt``), places (``ns``), organisations (``nt``) and other
proper nouns (``nz``). It cuts a person's transliterated name into pieces ("施泰因" + "迈尔",
"弗拉德" + "里" + "希"); a reviewer must see the whole name the answer wrote, so a person's
tagged parts are joined, and a name made only of transliteration characters runs on over the
single ones of them that jieba left untagged after it. Its dictionary also tags many everyday
words as names (福利 a place, 普通员工 an organisation, 安全性 a person); those are left out
(:func:`_ordinary`), here where every rule that reads names gets them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache

import jieba

from rag.check.zh_common_words import ZH_COMMON_WORDS

jieba.setLogLevel(logging.WARNING)  # it logs its dictionary loading at DEBUG to stderr

ZH_NAME_TAGS = frozenset({"nr", "nrfg", "nrt", "ns", "nt", "nz"})
"""jieba's tags for proper nouns: people, places, organisations, other names."""
MIN_ZH_NAME_CHARS = 2
"""One-character "names" are mostly tagging noise (姓 alone, 京 in a compound)."""
MIN_ZH_PERSON_CHARS = 3
"""Two-character "person names" in jieba's dictionary are mostly ordinary words read as
names (顾问, 元贵 in "4800 元贵 800 元"); full names and transliterations are longer."""
SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏"
    "魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵"
    "万钱严覃武戴莫孔向汤"
)
"""The hundred commonest Chinese surnames. A two-character person jieba guessed (a word not in
its dictionary) that starts with one is a full name: 黄锋, 李旭. The two-character "persons" in
its dictionary are ordinary words (顾问, 祝贺), and 元贵 does not start with a common surname."""
MAX_NAME_TAIL = 2
"""Single characters a transliterated name may run on by after jieba's cut ("弗拉德|里|希")."""
TRANSLITERATION = frozenset(
    "阿埃艾爱安昂奥巴拜班邦保鲍贝本比彼毕宾波伯博布查彻达戴丹道德登迪蒂丁杜多厄恩尔法凡范菲"
    "费芬丰夫弗福富盖甘冈戈格根古瓜圭哈海汉豪赫亨胡霍基吉加贾杰金卡凯坎康考柯科克肯库夸奎昆"
    "拉莱赖兰朗劳勒雷蕾里利莉列林琳隆卢鲁路伦罗洛马玛迈麦曼梅门蒙米密莫默姆穆纳娜内尼妮涅努"
    "诺欧帕潘佩彭皮珀普奇齐恰乔切琴丘萨塞桑森沙莎尚舍施斯松苏索塔泰坦汤唐特提图托瓦旺威韦维"
    "温沃乌西希锡夏谢辛休雅亚扬耶伊因尤约扎泽詹兹佐"
)
"""Characters of transliterated foreign names (the usual ones of Xinhua's name tables, less
those that are also common function words, such as 于 and 可): a name made of them only is
carried on over the single ones of them that follow it."""


@dataclass(frozen=True, slots=True)
class ZhName:
    """A Chinese name as it stands in a text: its characters, where, and jieba's tag."""

    text: str
    start: int
    end: int
    flag: str


@lru_cache(maxsize=1024)
def zh_names(text: str, *, guess: bool = True) -> tuple[ZhName, ...]:
    """The names in ``text``: jieba's name-tagged words, a person's parts joined ("施泰因" +
    "迈尔"), with a transliterated person's name carried on over the single characters jieba
    cut off its end ("弗拉德" + "里" + "希": a reviewer must see the whole name written), and a
    guessed person cut back to the name or left out (:func:`_untangled`); ordinary words the
    dictionary tags as names are not names (:func:`_ordinary`).

    ``guess``: with jieba's HMM for words not in its dictionary (about 4x the time).
    """
    import jieba.posseg  # its tag dictionary costs 0.2-0.4 s: paid by the first name looked for

    names: list[ZhName] = []
    tokens = jieba.posseg.lcut(text, HMM=guess)
    at = index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.flag not in ZH_NAME_TAGS or _ordinary(token.word, token.flag):
            at += len(token.word)
            index += 1
            continue
        start, flag = at, tokens[index].flag
        at += len(tokens[index].word)
        index += 1
        while _person(flag) and index < len(tokens) and _person(tokens[index].flag):
            at += len(tokens[index].word)
            index += 1
        if _person(flag) and set(text[start:at]) <= TRANSLITERATION:
            for _ in range(MAX_NAME_TAIL):
                if index == len(tokens) or tokens[index].word not in TRANSLITERATION:
                    break
                at += 1
                index += 1
        name = _untangled(ZhName(text[start:at], start, at, flag))
        if name is not None:
            names.append(name)
    return tuple(names)


NAME_ENDINGS = (
    *"院部局会委厅所署办府处司社党军队团馆校",  # organisations
    *("公司", "集团", "银行", "中心", "大学", "学院"),
    *"国省市县区州镇村乡岛山河湖江海洋路街门城港湾宫寺庙桥站园",  # places
    *"杯教",  # cups, religions
)
"""Endings of organisations, places, cups and religions (国务院, 外交部, 人民政府, 联合国,
世界杯, 基督教): a compound that ends so is a name even when its parts are ordinary words."""


def _ordinary(word: str, flag: str) -> bool:
    """Whether a word jieba tags as a name is an ordinary word after all: a known one
    (:data:`ZH_COMMON_WORDS`: 福利, 日志, 本科生, 青少年), or a place, organisation or other
    name that is a compound of ordinary words with no name's ending (统一安排 = 统一 + 安排,
    普通员工, 现代医学; but 北京大学 has 北京 in it and 国务院 ends as an organisation does).
    jieba's dictionary tags such phrases nt / nz / ns, one tag a word; its parts are read
    from its own dictionary. A person's name is made of ordinary words too (李自成, 王国生),
    so for people only the list and :func:`_not_a_person` count; names jieba guessed (not in
    its dictionary) are names."""
    if word in ZH_COMMON_WORDS:
        return True
    if jieba.get_FREQ(word) is None:
        return False  # a name jieba guessed: its tag is its own reading, not a dictionary's
    if _person(flag):
        return _not_a_person(word)
    parts = [part for part in jieba.cut_for_search(word) if part != word and len(part) >= 2]
    if not parts or word.endswith(NAME_ENDINGS):
        return False  # an atomic word: its tag is all there is to go by
    tags = jieba.posseg.dt.word_tag_tab
    return not any(tags.get(part) in ZH_NAME_TAGS and part not in ZH_COMMON_WORDS for part in parts)


_GRAMMAR = "之的地得了着过是在和与及或按以为对把被从向所"
"""Function characters. A person jieba guessed (a word not in its dictionary) may have taken
one in from a neighbouring word ("王蔷与" in "王蔷与斯齐亚沃尼"); with one inside it is a cut
across words ("课程费之差" read as 课程 + 费之差), not a name."""


def _untangled(name: ZhName) -> ZhName | None:
    """``name``, or for a guessed person the name without the function characters at its ends,
    or ``None`` when one is left inside."""
    if not _person(name.flag) or jieba.get_FREQ(name.text) is not None:
        return name
    text = name.text.strip(_GRAMMAR)
    if not text or any(char in _GRAMMAR for char in text):
        return None
    start = name.start + name.text.index(text)
    return ZhName(text, start, start + len(text), name.flag)


ABSTRACT_ENDINGS = tuple("性化率度型式者")
"""Endings of abstract nouns (安全性, 智能化, 贡献者), which jieba's dictionary often tags as
people; Chinese given names hardly end so."""


def _not_a_person(word: str) -> bool:
    """Whether a word jieba's dictionary tags as a person is an abstract noun by its ending.
    (Length says nothing: 伊万诺夫 and 约翰内斯堡 are names, 建立健全 is not.) Names jieba
    guessed are left to :func:`_untangled`."""
    return word.endswith(ABSTRACT_ENDINGS)


def _person(flag: str) -> bool:
    return flag.startswith("nr")


def full_name(name: ZhName) -> bool:
    """Whether a person's name of two characters is a surname and a given name (see
    :data:`SURNAMES`); longer ones are names anyway."""
    return _person(name.flag) and name.text[0] in SURNAMES and jieba.get_FREQ(name.text) is None
