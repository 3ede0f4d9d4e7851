"""Citations for a draft that carries none: each sentence gets the source that holds it.

Small open models often answer correctly and cite nothing, and asking them again for
citations returns the same text word for word (the 1.5B model on the model-path benchmark: 0
of 10 drafts fixed, bench/README.md). Such a draft would always go to review. Instead, each of
its sentences that needs a source is given the one retrieved source that holds it best — the
sentence word for word, or at least :data:`MIN_HELD` of its content words within a few
consecutive sentences (the window the claim rule reads, :mod:`rag.check.support`). A sentence
no source holds that well keeps no marker, and the checker flags it as uncited.

The bar is well above the claim rule's own (:data:`rag.check.claims.MIN_SUPPORT`): a model
that cites vouches for its choice, while here the best of several sources is picked, which
finds a chance match more often. The checker then reads the attributed draft like any other,
numbers, names and duties included; nothing it would have flagged passes because of this.

The same models also cite the wrong number ("4分钟内不得进行配对[3]" where [3] is about
newborns and [1] says it word for word). :func:`recite` moves such a marker: only when the
sources a sentence cites hold under :data:`rag.check.claims.MIN_SUPPORT` of it (the claim rule
would flag it) and another retrieved source holds it by the bar above.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rag.check.answer_text import Sentence, sentences
from rag.check.cited import CitedSources
from rag.check.claims import MIN_SUPPORT
from rag.check.coverage import covering_sentences, needs_source
from rag.check.meta_phrases import without_meta
from rag.check.numbers import quantities
from rag.check.support import MIN_CONTENT_WORDS, content_words, coverage
from rag.language import Language, detect_language
from rag.markers import MARKER, cited_numbers
from rag.results import Hit

MIN_HELD: dict[Language, float] = {"en": 0.6, "zh": 0.7}
"""Share of a sentence's content words its source must hold for the sentence to be given it."""

_CLOSING = "。．.！!？?；;…"


def attribute(draft: str, hits: Sequence[Hit]) -> tuple[str, int]:
    """``draft`` with ``[n]`` after each sentence that source ``n`` holds, and how many
    sentences were given one. A draft that cites anything is returned as it is: its model
    chose its sources, and the checker judges that choice."""
    if cited_numbers(draft) or not hits:
        return draft, 0
    sources = CitedSources(hits)
    pieces: list[str] = []
    written = read = given = 0  # draft[:written] is in pieces; sentences found up to read
    for sentence in sentences(draft):
        start = draft.find(sentence.text, read)
        if start < 0:  # sentences() returns pieces of the draft: not expected, left uncited
            continue
        read = start + len(sentence.text)
        if sentence.code:  # a marker after a closing fence breaks the block; its neighbours cite
            continue
        n = _holder(sentence, sources, len(hits))
        if n is not None:
            body = sentence.text.rstrip(_CLOSING)  # "…30 元[1]。", as the prompt asks
            pieces += [draft[written:start], body, f"[{n}]", sentence.text[len(body) :]]
            written, given = read, given + 1
    return "".join(pieces) + draft[written:], given


def recite(draft: str, hits: Sequence[Hit]) -> tuple[str, int]:
    """``draft`` with the markers of each sentence that cites only sources which barely hold
    it replaced by the one retrieved source that does, and how many sentences were moved. A
    marker covering more than its own sentence ("A。B[1]。") is left to the checker."""
    found = sentences(draft)
    covered = Counter(covering_sentences(found))  # how many sentences each marker covers
    sources = CitedSources(hits)
    pieces: list[str] = []
    written = read = moved = 0
    for index, sentence in enumerate(found):
        start = draft.find(sentence.text, read)
        if start < 0:
            continue
        read = start + len(sentence.text)
        if not sentence.cites or sentence.code or covered[index] != 1:
            continue
        held = _held(sentence, sources, len(hits))
        language = detect_language(sentence.plain)
        if any(held.get(n, 1.0) >= MIN_SUPPORT[language] for n in sentence.cites):
            continue  # its own choice holds enough of it: the checker judges that choice
        n = _best(held, language)
        if n is not None:
            pieces += [draft[written:start], _cited_to(sentence.text, n)]
            written, moved = read, moved + 1
    return "".join(pieces) + draft[written:], moved


def _cited_to(text: str, n: int) -> str:
    """``text`` with its first marker made ``[n]`` and any other dropped."""
    first = MARKER.search(text)
    if first is None:
        return text
    return f"{text[: first.start()]}[{n}]{MARKER.sub('', text[first.end() :])}"


def _holder(sentence: Sentence, sources: CitedSources, count: int) -> int | None:
    """The source holding ``sentence`` best, if one holds it well enough."""
    return _best(_held(sentence, sources, count), detect_language(sentence.plain))


def _best(held: dict[int, float], language: Language) -> int | None:
    best = max(held, key=lambda n: held[n], default=None)  # the first of equals: higher ranked
    return best if best is not None and held[best] >= MIN_HELD[language] else None


def _held(sentence: Sentence, sources: CitedSources, count: int) -> dict[int, float]:
    """How much of ``sentence`` each source in its language holds (1.0: word for word); empty
    when the sentence needs no source or has too few content words to tell."""
    plain = sentence.plain
    if not needs_source(sentence, bool(quantities(plain))):
        return {}
    language = detect_language(plain)
    comparable = [n for n in range(1, count + 1) if sources.language(n) == language]
    wanted = content_words(without_meta(plain), language)
    held: dict[int, float] = {}
    if len(wanted) >= MIN_CONTENT_WORDS:
        held = {
            n: coverage(wanted, sources.best(n, language, wanted).held(wanted)) for n in comparable
        }
    verbatim = next((n for n in comparable if sources.quote(plain, [n]).verbatim), None)
    if verbatim is not None:
        held = {n: 0.0 for n in comparable} | held | {verbatim: 1.0}
    return held
