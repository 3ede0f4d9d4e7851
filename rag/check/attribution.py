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
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.check.answer_text import Sentence, sentences
from rag.check.cited import CitedSources
from rag.check.coverage import needs_source
from rag.check.meta_phrases import without_meta
from rag.check.numbers import quantities
from rag.check.support import MIN_CONTENT_WORDS, content_words, coverage
from rag.language import Language, detect_language
from rag.markers import cited_numbers
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


def _holder(sentence: Sentence, sources: CitedSources, count: int) -> int | None:
    """The source holding ``sentence`` best, if one holds it well enough."""
    plain = sentence.plain
    if not needs_source(sentence, bool(quantities(plain))):
        return None
    language = detect_language(plain)
    comparable = [n for n in range(1, count + 1) if sources.language(n) == language]
    for n in comparable:
        if sources.quote(plain, [n]).verbatim:
            return n
    wanted = content_words(without_meta(plain), language)
    if len(wanted) < MIN_CONTENT_WORDS:
        return None
    held = {n: coverage(wanted, sources.best(n, language, wanted).held(wanted)) for n in comparable}
    best = max(held, key=lambda n: held[n], default=None)  # the first of equals: higher ranked
    return best if best is not None and held[best] >= MIN_HELD[language] else None
