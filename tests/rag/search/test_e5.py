"""The bundled multilingual-e5-small, for real, on a handful of texts (the only model test).

Paraphrases that share almost no words with their passage must still find it — the reason the
index has a dense half — in Chinese and in English. Across languages e5-small is weaker (a
Chinese question about an English passage is not reliably matched), so that is not promised.
"""

from __future__ import annotations

import numpy as np

from rag.search.embeddings import E5Embeddings

PASSAGES = [
    "员工带薪休假天数规定：入职满一年的员工每年享有 10 个工作日的带薪年假。",
    "周末及法定节假日安排工作的，按本人日工资的 200% 支付加班费。",
    "Passwords must be at least 12 characters long and may not contain your name.",
    "Taxis are reimbursed between 22:00 and 07:00 or when carrying teaching equipment.",
]
QUESTIONS = {
    "年假怎么算？": 0,
    "周六来公司干活怎么算钱？": 1,
    "How long does my login secret need to be?": 2,
    "Can I expense a cab late at night?": 3,
}


def test_paraphrases_find_their_passage_in_chinese_and_english() -> None:
    model = E5Embeddings()
    passages = np.asarray(model.embed_documents(PASSAGES), np.float32)
    assert passages.shape == (4, 384)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-3)
    for question, expected in QUESTIONS.items():
        cosine = passages @ np.asarray(model.embed_query(question), np.float32)
        assert int(np.argmax(cosine)) == expected, (question, cosine.round(3).tolist())
