"""Question-sentence similarity for the offline answerer, from any LangChain embedder.

:mod:`rag.generate.scoring` compares the question with a few candidate sentences by meaning.
The embedder is the one EMBEDDINGS names (built by :mod:`rag.assemble`); with
``EMBEDDINGS=none`` there is none and sentences are chosen by their words alone. A failing
embedder (a remote endpoint down) costs the answer its similarity, never the answer.

Sentence vectors are remembered (the last :data:`REMEMBERED` sentences): questions about the
same page meet the same sentences, and embedding them is most of an answer's time. One
similarity per embedder serves the process (:func:`shared`): the refusal gate's sentence lift
(:mod:`rag.search.lift`) embeds the first passage's best sentences, which the offline answerer
then compares again.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

logger = logging.getLogger(__name__)

REMEMBERED = 4096
"""Sentence vectors kept (e5-small: 1.5 KB each as float32, ~6 MB in all)."""

Vector = npt.NDArray[np.float32]


class SentenceSimilarity:
    """Cosine of the question (embedded as a query) with each sentence (as a passage)."""

    def __init__(self, embeddings: Embeddings, identity: str) -> None:
        self.embeddings = embeddings
        self.identity = identity
        """The embedder's identity: part of the answers' cache key, since it changes them."""
        self._vectors: OrderedDict[str, Vector] = OrderedDict()
        self._lock = threading.Lock()  # answers are computed on worker threads

    def __call__(self, question: str, sentences: list[str]) -> list[float] | None:
        """One cosine per sentence, or ``None`` when the embedder failed."""
        try:
            query = _unit(self.embeddings.embed_query(question))
            rows = self._sentence_vectors(sentences)
        except Exception:  # any embedder's failure: the words alone decide, as without one
            logger.warning("sentence similarity unavailable; quoting by words", exc_info=True)
            return None
        return [float(row @ query) for row in rows]

    def _sentence_vectors(self, sentences: list[str]) -> list[Vector]:
        with self._lock:
            known = {s: self._vectors[s] for s in sentences if s in self._vectors}
        missing = list(dict.fromkeys(s for s in sentences if s not in known))
        if missing:
            fresh = dict(zip(missing, self.embeddings.embed_documents(missing), strict=True))
            known |= {s: _unit(vector) for s, vector in fresh.items()}
        with self._lock:
            for sentence in sentences:
                self._vectors[sentence] = known[sentence]
                self._vectors.move_to_end(sentence)
            while len(self._vectors) > REMEMBERED:
                self._vectors.popitem(last=False)
        return [known[s] for s in sentences]


def _unit(vector: list[float]) -> Vector:
    array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm else array


_SHARED: dict[str, SentenceSimilarity] = {}
_SHARED_LOCK = threading.Lock()


def shared(embeddings: Embeddings, identity: str) -> SentenceSimilarity:
    """This process's similarity for the embedder ``identity`` names (made with
    ``embeddings`` the first time): whoever compares sentences with it reuses the vectors the
    others embedded."""
    with _SHARED_LOCK:
        if identity not in _SHARED:
            _SHARED[identity] = SentenceSimilarity(embeddings, identity)
        return _SHARED[identity]
