"""Which citations cover a sentence of an answer, and which sources its numbers answer to.

A sentence is covered by its own markers, else by those of the next sentence of its paragraph
that has markers ("A。B[1]。" — the [1] covers both). A cited lead-in covers the list or table
under it, a short line under a list or table that points back at it ("以上见加班规定[1]。")
covers that list or table, and a closing "来源：[1][2]" line covers whatever is left. A sentence
after the last marker of its paragraph is otherwise uncovered; its numbers are checked against
the sources its paragraph cites, else those the whole answer cites.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.check.answer_text import Sentence, sentences
from rag.check.code_blocks import identifiers
from rag.check.entities import named_things
from rag.check.numbers import quantities
from rag.language import detect_language
from rag.reading import SENTENCE_END, claim_terms

SOURCES_LINE_CHARS = 12
"""A closing line this short that is all markers and a label cites for the whole answer."""
MIN_TERMS_TO_JUDGE = 2
"""Fewer content terms than this and a sentence is too thin to judge which source it is from."""
SUBSTANTIVE_TERMS = 3
"""A sentence with no quantity states a fact when it has at least this many content terms."""
POINTER_LINE_CHARS = 40
"""A line pointing back at the list or table above it is short: a label, not a claim."""
_POINTER = re.compile(
    r"^\W*(?:以上|上述|上表|上面|上列)|(?:来源|出处|资料)\s*[:：]"
    r"|^\W*(?:(?:the\s+)?above|sources?|from)\b|\b(?:list|table|figures?)\s+above\b",
    re.IGNORECASE,
)
_HEADING_LINE_CHARS = 20
TITLE_SHARE = 0.6
"""A line with this share of its words capitalised is written as a title."""
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_EXEMPT = re.compile(
    r"希望.{0,8}帮助|如有(?:疑问|问题|其他)|欢迎.{0,4}(?:咨询|提问)"
    r"|^(?:祝(?:您|你)[^，。！？,.!?]{0,12}|(?:您|你)好)"  # "祝您休假愉快！", "您好！"
    r"|(?:资料|文档|来源)[里中]?(?:没有|未|并未|没)(?:写|提到|提及|说明|涉及|给出)"
    r"|hope (?:this|that) helps|let me know|feel free"
    r"|(?:documents?|sources?) (?:do(?:es)?n't|do(?:es)? not) (?:say|cover|mention|specify)"
    r"|not (?:mentioned|specified|covered|stated) in",
    re.IGNORECASE,
)


def covering_sentences(found: Sequence[Sentence]) -> list[int | None]:
    """For each sentence, the index of the sentence whose markers cover it, or None.

    Markers cover the sentences before them in their paragraph ("A。B[1]。"); a cited lead-in
    covers the list items, table rows and code blocks under it ("价格如下[1]：\n- …\n- …"); a
    code block no lead-in covers is covered by a cited sentence right after it; a closing
    line of nothing but markers ("来源：[1][2]") covers whatever is left uncovered.
    """
    covering: list[int | None] = [None] * len(found)
    next_cited: int | None = None
    for index in range(len(found) - 1, -1, -1):
        sentence = found[index]
        if index + 1 < len(found) and found[index + 1].paragraph != sentence.paragraph:
            next_cited = None
        if sentence.cites:
            next_cited = index
        covering[index] = next_cited
    for index, sentence in enumerate(found):
        if covering[index] is None and sentence.item:
            covering[index] = _lead_in_above(found, index)
        if covering[index] is None and sentence.code and index + 1 < len(found):
            # "```yaml …```\n\n这样就会监听两个端口[1]。": the sentence after a block cites for it
            covering[index] = index + 1 if found[index + 1].cites else None
    pointed = _pointed_back(found)
    covering = [pointed.get(row) if cover is None else cover for row, cover in enumerate(covering)]
    last = len(found) - 1
    if found and found[last].cites and _sources_line(found[last]):
        covering = [last if cover is None else cover for cover in covering]
    return covering


def _sources_line(sentence: Sentence) -> bool:
    """ "来源：[1][2]", "参考资料：[1]", "Sources: [2]" — a label, not a claim."""
    short = len(sentence.plain) <= SOURCES_LINE_CHARS
    return short and (sentence.lead_in or len(claim_terms(sentence.plain)) < MIN_TERMS_TO_JUDGE)


def _pointed_back(found: Sequence[Sentence]) -> dict[int, int]:
    """The list items and table rows right above a short line that points back at them, each
    with the first such line."""
    pointed: dict[int, int] = {}
    for index, sentence in enumerate(found):
        if sentence.cites and _points_back(sentence):
            for row in _listed_run(found, range(index - 1, -1, -1)):
                pointed.setdefault(row, index)
    return pointed


def _points_back(sentence: Sentence) -> bool:
    """ "以上见加班规定[1]。", "上表来源：[2]", "(Source for the table above: [1])": a short line
    under a list or table that cites for it."""
    return len(sentence.plain) <= POINTER_LINE_CHARS and _POINTER.search(sentence.plain) is not None


def introduced(found: Sequence[Sentence], index: int) -> list[int]:
    """The list items or table rows under the lead-in ``found[index]``: what its citation
    points at, whether or not they cite again themselves. Models often leave a blank line
    before a table or between items; a heading or a line of prose ends the list."""
    return _listed_run(found, range(index + 1, len(found)))


def _listed_run(found: Sequence[Sentence], rows: range) -> list[int]:
    """The ``rows`` (walked in their order) up to the first that is not a list item or table
    row."""
    run = []
    for row in rows:
        if not _listed(found[row]):
            break
        run.append(row)
    return run


def _lead_in_above(found: Sequence[Sentence], index: int) -> int | None:
    """The cited lead-in whose list ``found[index]`` is in, if any (see :func:`introduced`)."""
    for above in range(index - 1, -1, -1):
        candidate = found[above]
        if candidate.lead_in:
            return above if candidate.cites else None
        if not _listed(candidate):
            return None
    return None


def _listed(sentence: Sentence) -> bool:
    return sentence.item and not sentence.text.startswith("#")  # a table's header row is in


def applicable(
    found: Sequence[Sentence],
    index: int,
    cover: int | None,
    cited_anywhere: Sequence[int],
    n_hits: int,
) -> tuple[int, ...] | None:
    """The sources a sentence's numbers are checked against (None: only unknown numbers)."""
    if cover is not None:
        refs = tuple(n for n in found[cover].cites if 1 <= n <= n_hits)
        return refs or None
    paragraph = found[index].paragraph
    in_paragraph = {
        n for s in found if s.paragraph == paragraph for n in s.cites if 1 <= n <= n_hits
    }
    if in_paragraph:
        return tuple(sorted(in_paragraph))
    return tuple(cited_anywhere) or tuple(range(1, n_hits + 1))


def needs_source(sentence: Sentence, has_quantity: bool) -> bool:
    plain = sentence.plain
    if sentence.code:  # a block with keys or numbers states what the documentation has
        return has_quantity or bool(identifiers(plain))
    if sentence.lead_in:
        return False  # a lead-in: what it introduces carries the citations (its numbers are
        # still checked against them)
    if has_quantity:
        return True
    exempt = _EXEMPT.search(plain)
    if (
        exempt
        and len(claim_terms(plain[: exempt.start()] + plain[exempt.end() :])) < SUBSTANTIVE_TERMS
    ):
        return False  # only courtesy or "the documents don't say": nothing to source
    if sentence.heading:
        return False  # a Markdown heading or a table's header row
    short_line = sentence.whole_line and len(plain) <= _HEADING_LINE_CHARS
    if short_line and not sentence.item and not SENTENCE_END.search(plain):
        return False  # a title line ("退费计算", "**计算过程**"); list items are content
    return len(claim_terms(plain)) >= SUBSTANTIVE_TERMS


def names(sentence: Sentence) -> bool:
    """Whether a sentence too short to state a fact in words, or a lead-in, names something
    specific ("Install McAfee on it [1].", "孟庆龙对记者说，办法明确界定：[1]"): its names are
    still checked against what it cites. A heading, or a lead-in written as a title ("Fischer
    Indole Synthesis:"), is capitalised as titles are, not because it names things."""
    if sentence.heading or (sentence.lead_in and _title_case(sentence.plain)):
        return False
    return bool(named_things(sentence.plain, detect_language(sentence.plain)))


def _title_case(text: str) -> bool:
    words = _WORD.findall(text)
    return len(words) >= 2 and sum(word[0].isupper() for word in words) >= TITLE_SHARE * len(words)


def cited_sentences(text: str, n_hits: int) -> list[tuple[str, tuple[int, ...]]]:
    """Each sentence that states something and cites (as written), with the sources it cites:
    what the claim rules judge, and what the optional model judge is asked about."""
    found = sentences(text)
    covering = covering_sentences(found)
    claims: list[tuple[str, tuple[int, ...]]] = []
    for index, sentence in enumerate(found):
        cover = covering[index]
        if cover is None or not needs_source(sentence, bool(quantities(sentence.plain))):
            continue
        refs = tuple(n for n in found[cover].cites if 1 <= n <= n_hits)
        if refs:
            claims.append((sentence.text, refs))
    return claims
