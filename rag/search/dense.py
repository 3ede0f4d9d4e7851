"""Dense vectors in this process: unit rows, a question's vector, its cosines to every row."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

logger = logging.getLogger(__name__)

Matrix = npt.NDArray[np.float32]

EMBED_BATCH = 32
"""Texts per embedder call while indexing: the progress bar moves once per batch."""


def normalised(vectors: Sequence[Sequence[float]] | Sequence[float] | Matrix) -> Matrix:
    """Rows scaled to unit length (zero rows stay zero), as one float32 matrix."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix.reshape(1, -1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: Matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return unit


def embed_texts(texts: Sequence[str], embeddings: Embeddings, *, progress: bool = False) -> Matrix:
    """Embed ``texts`` in batches, with a progress bar and ETA on stderr when asked."""
    from tqdm import tqdm  # only in-memory indexes (tests, eval) embed here: not every start

    rows: list[list[float]] = []
    with tqdm(
        total=len(texts), desc="embedding", unit="chunk", disable=not progress, leave=False
    ) as bar:
        for start in range(0, len(texts), EMBED_BATCH):
            batch = list(texts[start : start + EMBED_BATCH])
            rows.extend(embeddings.embed_documents(batch))
            bar.update(len(batch))
    return normalised(rows) if rows else np.zeros((0, 0), np.float32)


def dense_scores(vectors: Matrix, embeddings: Embeddings, question: str) -> Matrix | None:
    query = query_vector(embeddings, question)
    if query is None:
        return None
    scores: Matrix = vectors @ query
    return scores


def query_vector(embeddings: Embeddings, question: str) -> Matrix | None:
    # A remote embedder can fail (endpoint down, quota); the question is then answered from
    # lexical search alone rather than not at all. Remote embedders gate on the lexical
    # signals anyway (rag.search.gate.gate_for), so the threshold keeps its meaning.
    try:
        query: Matrix = normalised(embeddings.embed_query(question))[0]
        return query
    except Exception:
        logger.exception("query embedding failed; searching lexically only")
        return None
