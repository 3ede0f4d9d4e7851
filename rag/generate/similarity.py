"""Question-sentence similarity for the offline answerer, from any LangChain embedder.

:mod:`rag.generate.scoring` compares the question with a few candidate sentences by meaning.
The embedder is the one EMBEDDINGS names (built by :mod:`rag.assemble`); with
``EMBEDDINGS=none`` there is none and sentences are chosen by their words alone. A failing
embedder (a remote endpoint down) costs the answer its similarity, never the answer.
"""

from __future__ import annotations

import logging

import numpy as np
from langchain_core.embeddings import Embeddings

logger = logging.getLogger(__name__)


class SentenceSimilarity:
    """Cosine of the question (embedded as a query) with each sentence (as a passage)."""

    def __init__(self, embeddings: Embeddings, identity: str) -> None:
        self.embeddings = embeddings
        self.identity = identity
        """The embedder's identity: part of the answers' cache key, since it changes them."""

    def __call__(self, question: str, sentences: list[str]) -> list[float] | None:
        """One cosine per sentence, or ``None`` when the embedder failed."""
        try:
            query = np.asarray(self.embeddings.embed_query(question), dtype=np.float64)
            rows = np.asarray(self.embeddings.embed_documents(sentences), dtype=np.float64)
        except Exception:  # any embedder's failure: the words alone decide, as without one
            logger.warning("sentence similarity unavailable; quoting by words", exc_info=True)
            return None
        norms = np.linalg.norm(rows, axis=1) * (np.linalg.norm(query) or 1.0)
        cosines = rows @ query / np.where(norms == 0, 1.0, norms)
        return [float(c) for c in cosines]
