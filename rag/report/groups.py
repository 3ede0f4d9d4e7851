"""The unanswered questions grouped by meaning: the list of documents to write.

Records are first joined by question hash (one question, however often asked); then, when the
texts were kept, wordings of the same question are merged by cosine similarity of their
embeddings (the bundled e5 by default), most-asked first: a question joins the first group
whose leading wording is at least :data:`SAME_MEANING` similar. Measured with e5 on questions
that are not in the sample documents: paraphrases ("火星上的天气怎么样？" / "火星天气如何",
"Where can I get a parking pass?" / "How do I get a parking permit?") score 0.95–0.99, different
questions 0.72–0.86.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from langchain_core.embeddings import Embeddings

from rag.report.records import QuestionRecord

SAME_MEANING = 0.92


@dataclass
class _Asked:
    hash: str
    count: int = 0
    texts: Counter[str] = field(default_factory=Counter)
    verdicts: Counter[str] = field(default_factory=Counter)
    last_at: float = 0.0

    @property
    def sample(self) -> str | None:
        return self.texts.most_common(1)[0][0] if self.texts else None


@dataclass(frozen=True, slots=True)
class Group:
    count: int
    """How often any wording of this question was asked."""
    sample: str | None
    """The most frequent wording; ``None`` when texts were not kept (RECORD_QUESTIONS=false)."""
    wordings: tuple[str, ...]
    hashes: tuple[str, ...]
    verdicts: dict[str, int]
    last_at: float


def _by_hash(records: Iterable[QuestionRecord]) -> list[_Asked]:
    asked: dict[str, _Asked] = {}
    for record in records:
        if record.verdict == "answer":
            continue
        entry = asked.setdefault(record.hash, _Asked(record.hash))
        entry.count += 1
        entry.verdicts[record.verdict] += 1
        entry.last_at = max(entry.last_at, record.at)
        if record.text:
            entry.texts[record.text] += 1
    return sorted(asked.values(), key=lambda a: (-a.count, -a.last_at, a.hash))


def _clusters(
    asked: Sequence[_Asked], embeddings: Embeddings | None, similarity: float
) -> list[list[_Asked]]:
    texts = [a.sample for a in asked if a.sample is not None]
    vectors: dict[str, np.ndarray] = {}
    if embeddings is not None and texts:
        rows = np.asarray([embeddings.embed_query(text) for text in texts], np.float32)
        rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
        vectors = dict(zip(texts, rows, strict=True))
    clusters: list[list[_Asked]] = []
    leaders: list[np.ndarray] = []
    for entry in asked:
        vector = vectors.get(entry.sample) if entry.sample is not None else None
        if vector is not None:
            for cluster, leader in zip(clusters, leaders, strict=False):
                if leader.size and float(leader @ vector) >= similarity:
                    cluster.append(entry)
                    break
            else:
                clusters.append([entry])
                leaders.append(vector)
            continue
        clusters.append([entry])
        leaders.append(np.zeros(0, np.float32))
    return clusters


def group_unanswered(
    records: Iterable[QuestionRecord],
    embeddings: Embeddings | None,
    *,
    similarity: float = SAME_MEANING,
) -> list[Group]:
    """Refused and unverified questions as groups, most asked first."""
    groups = []
    for cluster in _clusters(_by_hash(records), embeddings, similarity):
        texts: Counter[str] = Counter()
        verdicts: Counter[str] = Counter()
        for entry in cluster:
            texts.update(entry.texts)
            verdicts.update(entry.verdicts)
        wordings = tuple(text for text, _ in texts.most_common())
        groups.append(
            Group(
                count=sum(entry.count for entry in cluster),
                sample=wordings[0] if wordings else None,
                wordings=wordings,
                hashes=tuple(entry.hash for entry in cluster),
                verdicts=dict(sorted(verdicts.items())),
                last_at=max(entry.last_at for entry in cluster),
            )
        )
    return sorted(groups, key=lambda g: (-g.count, -g.last_at, g.hashes[0]))
