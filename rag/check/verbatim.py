"""What an answer sentence quotes from its source: the source sentence it repeats.

The modality, negation and direction rules compare a sentence with the window of its source
that holds most of its words (:mod:`rag.check.support`); a window of several sentences can hold
the quoted sentence *and* a neighbour saying "not" or "may not", and a sentence copied word for
word was flagged as saying the opposite of its own source. So the rules first look for the
source sentence the claim quotes:

- a claim that *is* one of its source's sentences (verbatim, after the normalisation the
  checker reads answers with: :func:`rag.check.answer_text.sentences`, then NFKC, case and
  whitespace folded, closing punctuation dropped) passes them, and the number rules too: it
  says exactly what it cites;
- a claim inside one source sentence (a part of it quoted) is compared with that sentence,
  not with the window: "Employees may work remotely" inside "No employee may work remotely
  on Fridays" is still the opposite of it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from rag.check.answer_text import sentences

_CLOSING = ".。!！?？;；:："
MIN_QUOTED_CHARS = 4
"""A folded claim shorter than this ("是", "No") is too short to say which sentence it is part
of."""


def fold(text: str) -> str:
    """NFKC, case and whitespace folded, closing punctuation dropped."""
    folded = "".join(unicodedata.normalize("NFKC", text).casefold().split())
    return folded.rstrip(_CLOSING)


@dataclass(frozen=True, slots=True)
class Quote:
    verbatim: bool = False
    """The claim is one of the source's sentences."""
    sentence: str | None = None
    """The source sentence holding the claim (as written), when one does."""


class SourceSentences:
    """One source's sentences, read as an answer's are, folded once."""

    def __init__(self, text: str) -> None:
        read = [sentence.plain for sentence in sentences(text)]
        self._folded = [(fold(plain), plain) for plain in read]
        self._whole = {folded for folded, _ in self._folded}

    def quote(self, claim: str) -> Quote:
        folded = fold(claim)
        if folded in self._whole:
            return Quote(verbatim=bool(folded))
        if len(folded) < MIN_QUOTED_CHARS:
            return Quote()
        for sentence, plain in self._folded:
            if folded in sentence:
                return Quote(sentence=plain)
        return Quote()
