"""Every passage's similarities to one question: what ranks and gates it.

:meth:`rag.search.index.Index.signals` computes them once per question — the lexical scores
(with the question's words in the other language for passages written in it), the dense cosine
and its standing against the question's background (:mod:`rag.search.standing`) — and
:meth:`rag.search.index.Index.search` ranks and gates with them. They are kept apart from the
ranking so that whatever weighs them (the shipped gate, a gate fitted on other corpora in
``bench/answerability.py``) sees exactly what search saw.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rag.search.gate import GateModel
from rag.search.lexical import LexicalScores

Matrix = npt.NDArray[np.float32]
RowArray = npt.NDArray[np.intp]


@dataclass(frozen=True, slots=True)
class Signals:
    lexical: LexicalScores
    dense: Matrix | None = None
    """Dense cosine per passage; ``None`` without dense search."""
    standing: Matrix | None = None
    """The cosine's standing against the question's background; NaN where unknown."""
    crossed: npt.NDArray[np.bool_] | None = None
    """The passages written in the other language than the question."""

    def subset(self, rows: RowArray) -> Signals:
        """The signals of ``rows`` only, in that order."""
        return Signals(
            self.lexical.subset(rows),
            None if self.dense is None else self.dense[rows],
            None if self.standing is None else self.standing[rows],
            None if self.crossed is None else self.crossed[rows],
        )

    def scores(self, gate: GateModel) -> Matrix:
        """``gate``'s score of every passage."""
        lexical = self.lexical
        return gate.scores(
            lexical.coverage, lexical.cosine, self.dense, self.standing, self.crossed
        )

    def scored(self, gate: GateModel) -> tuple[Matrix, Matrix]:
        """``gate``'s score and rank of every passage, in one pass (:meth:`GateModel.scored`)."""
        lexical = self.lexical
        return gate.scored(
            lexical.coverage, lexical.cosine, self.dense, self.standing, self.crossed
        )
