"""How much closer one sentence of the first passage stands to the question than the passage.

A passage that answers holds a sentence saying what was asked ("默认监听 9080 端口"), and that
sentence is nearer the question by meaning than the passage as a whole. A passage only about the
topic is near as a whole, and none of its sentences is much nearer: it names the subject
throughout without saying the asked thing. The *lift* is that difference::

    lift = max cosine(question, sentence) - cosine(question, passage)

over the :data:`SENTENCES` sentences of the first passage that hold most of the question's
words (weighted by rarity, as the coverage is): the one that answers nearly always shares the
question's rare words, and embedding only those keeps the cost to one small batch. The gate adds
it, standardised and weighed, to the first passage's score (:attr:`GateModel.lift`); the order
of passages is untouched.

Measured left one corpus out (``bench/answerability.py``, gate AUROC answerable vs not, gate 5
-> 6, the weight fitted on the other three): realdocs-tune en-18f 0.862 -> 0.878, zh-apisix
0.838 -> 0.869, field-ext-tune clapnq 0.888 -> 0.898, cmrc2018-trial 0.987 -> 0.990. The best
sentence of the whole passage instead of the three best by words gave the same; a sentence's
share of the question's words in place of its meaning lowered en-18f and zh-apisix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from langchain_core.embeddings import Embeddings

from rag.lines import starts_block, without_marker
from rag.reading import search_terms, sentence_pieces
from rag.results import Hit
from rag.search.embeddings import embedder_identity
from rag.search.gate import GateModel
from rag.similarity import SentenceSimilarity, shared

SENTENCES = 3
"""Sentences embedded per question: a search on a page first asked about takes ~14 ms more with
e5-small on 2 cores, ~1 ms once its sentences are remembered (``bench/lift_cost.py``)."""
CHARS = 200
"""The first characters of a sentence that are embedded (as the offline answerer does)."""
SHORTEST = 4
"""Shorter pieces (a list marker, a stray "。") are no sentence."""


def sentences(text: str) -> list[str]:
    """``text``'s sentences without list markers, spaces collapsed, each cut to :data:`CHARS`
    (as the offline answerer embeds them, which then finds their vectors remembered); a
    soft-wrapped line is read with the line it continues."""
    found = []
    for line in _unwrapped(text):
        for piece in sentence_pieces(without_marker(line)):
            sentence = " ".join(without_marker(piece.strip()).split())
            if len(sentence) >= SHORTEST:
                found.append(sentence[:CHARS])
    return found


def _unwrapped(text: str) -> list[str]:
    lines: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        previous = lines[-1] if lines else ""
        if line and previous and not starts_block(line) and not previous.startswith(("#", "|")):
            space = " " if previous[-1].isascii() and line[0].isascii() else ""
            lines[-1] = previous + space + line
        else:
            lines.append(line)
    return lines


def by_words(pieces: Sequence[str], weights: dict[str, float], count: int) -> list[str]:
    """The ``count`` sentences holding most of the question's term ``weights``; among equals
    the earlier."""
    held = [sum(weights.get(term, 0.0) for term in set(search_terms(p))) for p in pieces]
    order = sorted(range(len(pieces)), key=lambda i: -held[i])
    return [pieces[i] for i in order[:count]]


def lift(
    question: str,
    text: str,
    dense: float,
    weights: dict[str, float],
    similarity: SentenceSimilarity,
) -> float | None:
    """The lift of the passage ``text`` whose cosine to ``question`` is ``dense``; ``None``
    without a sentence or when the embedder failed (the gate then goes without it)."""
    chosen = by_words(sentences(text), weights, SENTENCES)
    cosines = similarity(question, chosen) if chosen else None
    return None if not cosines else max(cosines) - dense


class Lifter:
    """The lift of a question's first passage, for an index whose passages ``embeddings``
    embedded and whose lexical index gives a question's term ``weights``."""

    def __init__(
        self,
        embeddings: Embeddings,
        weights: Callable[[str], dict[str, float]],
        similarity: SentenceSimilarity | None = None,
    ) -> None:
        """``similarity``: the process's one for the embedder unless given."""
        self.similarity = similarity or shared(embeddings, embedder_identity(embeddings))
        self.weights = weights

    def __call__(self, question: str, hit: Hit) -> float | None:
        """``hit``'s lift for ``question`` (``None``: no dense cosine, no sentence)."""
        if hit.dense is None:
            return None
        return lift(question, hit.chunk.text, hit.dense, self.weights(question), self.similarity)

    def first(self, gate: GateModel, question: str, hits: list[Hit]) -> list[Hit]:
        """``hits`` with the first one's score lifted by ``gate`` (as they are when it has no
        lift): the score the refusal decision reads."""
        value = self(question, hits[0]) if hits and gate.lifts else None
        if value is None:
            return hits
        return [replace(hits[0], score=gate.lifted(hits[0].score, value)), *hits[1:]]
