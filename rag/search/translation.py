"""A question in the other language than some passages: those passages also read against the
question's words in their language (:mod:`rag.glossary`, each word as these passages name it).

The others keep the question's own reading, and a folder in one language never translates.
For a Chinese question, "the other language" means passages without any ideograph: a short
Chinese text naming products in Latin letters ("iphone6s plus和iphone7哪个好") counts as
English by its letters, but the question's own words already meet its Chinese ones, while the
translated reading's glosses of common words (加 -> "plus", 用 -> "use") met its Latin words
and only ever raised it over the Chinese passages that answer (a paraphrase set's document
Recall@1 fell 0.921 -> 0.910; bench/README.md, "Paraphrases").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from rag.chunks import Chunk
from rag.glossary import glossary
from rag.language import Language, has_ideograph
from rag.search.lexical import LexicalIndex, LexicalScores
from rag.search.lexical_store import written_in_chinese

Flags = npt.NDArray[np.bool_]


class Translation:
    """The cross-language reading of an index's passages (their languages read once, when
    first needed; ``chinese``: stored with the lexical index, when known)."""

    def __init__(
        self, chunks: Sequence[Chunk], lexical: LexicalIndex, chinese: Flags | None = None
    ) -> None:
        self.chunks = chunks
        self.lexical = lexical
        self._chinese = chinese
        self._no_ideograph: Flags | None = None

    def reading(self, question: str, own: LexicalScores) -> LexicalScores:
        """``own`` (the question's scores as written), raised where the translated reading
        scores a passage of the other language higher."""
        translated = self._translated(question)
        if translated is None:
            return own
        crossed = self.lexical.scores(translated[1])
        # The better reading: an "English" passage may be config holding the words as written.
        return own.raised_to(crossed, where=translated[0])

    def weights(self, question: str) -> dict[str, float]:
        """The question's term weights (:meth:`LexicalIndex.weights`), with its translated
        words' where the index has passages in the other language: what a passage's sentences
        are read against (:mod:`rag.search.lift`)."""
        own = self.lexical.weights(question)
        translated = self._translated(question)
        if translated is None:
            return own
        return self.lexical.weights(translated[1]) | own

    def _translated(self, question: str) -> tuple[Flags, str] | None:
        """The passages in the other language than ``question`` and the question in their
        words, or ``None`` when there are none or no word translates."""
        into: Language = "en" if has_ideograph(question) else "zh"  # the pipeline detects once
        other = self._in_language(into)
        if not other.any():
            return None
        words = [self.lexical.common(c) for c in glossary().candidates(question, into)]
        if not any(words):
            return None
        # A word these passages never use still counts against them, as an unseen term does
        # in the question's own reading: "食堂" must not vanish and leave "company" to match.
        return other, " ".join(word or f"untranslated{i}" for i, word in enumerate(words))

    @property
    def chinese(self) -> Flags:
        """Which passages are written in Chinese (read once, when first needed)."""
        if self._chinese is None:
            self._chinese = written_in_chinese(self.chunks)
        return self._chinese

    def _in_language(self, language: Language) -> Flags:
        if language == "zh":
            return self.chinese
        if self._no_ideograph is None:
            self._no_ideograph = np.fromiter(
                (not has_ideograph(chunk.text) for chunk in self.chunks),
                dtype=np.bool_,
                count=len(self.chunks),
            )
        return self._no_ideograph
