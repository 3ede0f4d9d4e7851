"""Lexical features and scores: CJK n-grams, folding, BM25 ranking, bounded cosine and coverage."""

from __future__ import annotations

import numpy as np
import pytest

from rag.reading import features, query_terms, search_terms
from rag.search.lexical import LexicalIndex

TEXTS = [
    "退费手续费为可退金额的 5%，最低 50 元。",
    "口语课共四个级别，每级 16 课时，每课时 45 分钟。",
    "Full-time employees receive 20 days of paid annual leave.",
]


def test_cjk_runs_give_characters_and_bigrams_latin_gives_words() -> None:
    assert features("退费 VPN") == ["退", "费", "退费", "vpn"]


def test_full_width_and_case_are_folded() -> None:
    assert features("ＶＰＮ１２３") == features("vpn123") == ["vpn123"]


def test_english_words_meet_their_inflections() -> None:
    """ "change my password" is what "Passwords are changed" says: stems, not spellings."""
    assert search_terms("Passwords are changed") == ["password", "are", "chang"]
    assert search_terms("change my password") == ["chang", "my", "password"]
    index = LexicalIndex([*TEXTS, "Passwords are changed only when there is a reason."])
    scores = index.scores("How often must I change my password?")
    assert int(np.argmax(scores.coverage)) == len(TEXTS)
    assert float(scores.coverage[len(TEXTS)]) > 0.1  # spelled as written, it shared no word
    assert search_terms("退费 VPN") == ["退", "费", "退费", "vpn"]  # CJK and codes untouched


def test_bm25_ranks_the_text_sharing_the_rare_terms_first() -> None:
    index = LexicalIndex(TEXTS)
    assert int(np.argmax(index.scores("手续费最低多少").bm25)) == 0
    assert int(np.argmax(index.scores("how many days of annual leave").bm25)) == 2


def test_cosine_and_coverage_are_bounded_and_full_for_the_text_itself() -> None:
    index = LexicalIndex(TEXTS)
    scores = index.scores(TEXTS[1])
    # The query leaves out function characters (的, 个…), the passage keeps them: not quite 1.
    assert scores.cosine[1] == pytest.approx(1.0, abs=0.06)
    assert int(np.argmax(scores.cosine)) == 1
    assert scores.coverage[1] == pytest.approx(1.0, abs=1e-5)
    for values in (scores.cosine, scores.coverage):
        assert float(values.min()) >= 0.0
        assert float(values.max()) <= 1.0


def test_coverage_does_not_punish_a_long_passage_holding_the_whole_question() -> None:
    long_text = TEXTS[0] + " 其他说明。" * 40
    index = LexicalIndex([long_text, TEXTS[1]])
    scores = index.scores("退费手续费")
    assert scores.coverage[0] == pytest.approx(1.0, abs=1e-5)
    assert scores.cosine[0] < 0.5


def test_words_the_corpus_never_saw_lower_both_signals() -> None:
    index = LexicalIndex(TEXTS)
    known = index.scores("annual leave days")
    with_unknown = index.scores("annual leave days maternity paternity sabbatical")
    assert with_unknown.cosine[2] < known.cosine[2]
    assert with_unknown.coverage[2] < known.coverage[2]


def test_a_query_without_features_scores_zero_everywhere() -> None:
    scores = LexicalIndex(TEXTS).scores("？！。")
    for values in (scores.bm25, scores.cosine, scores.coverage):
        assert values.tolist() == [0.0, 0.0, 0.0]


def test_bm25_parameters_are_validated() -> None:
    with pytest.raises(ValueError, match=r"k1=-1, b=0.75"):
        LexicalIndex(TEXTS, k1=-1)


def test_question_words_do_not_count_as_what_the_question_names() -> None:
    """ "有没有…吗", "how many … do we" are in every question; only what it names counts."""
    terms = query_terms("口语课有没有级别吗")
    assert {"口语", "语课", "级别"} <= set(terms)
    assert not {"有没", "没有", "吗"} & set(terms)
    assert query_terms("how many days do we get") == ["mani", "day"]


def test_chat_shorthand_and_word_boundaries_do_not_read_as_missing_content() -> None:
    index = LexicalIndex(
        [
            "Passwords are changed every 90 days.",
            "口语课程共设四个级别。",
            *["每年一次。", "共计三天。", "有事请假。", "几天内到账。", "级别越高越贵。"],
        ]
    )
    plain = index.scores("password change days")
    shorthand = index.scores("pw password change days")  # "pw": unknown, short
    assert shorthand.coverage[0] == pytest.approx(float(plain.coverage[0]), abs=1e-5)
    missing = index.scores("password change terraform")  # an unknown word: content not there
    assert float(missing.coverage[0]) < float(plain.coverage[0])
    # "一共有几级" straddles words: its unseen bigrams weigh what their characters weigh.
    # (Weighed as unknown words they would leave it 0.36.)
    assert float(index.scores("口语课一共有几级").coverage[1]) > 0.45
