"""Unanswered questions grouped by meaning, most asked first."""

from __future__ import annotations

from rag.report.groups import group_unanswered
from rag.search.embeddings import HashingEmbeddings
from tests.rag.report.records_factory import asked


def test_the_same_question_in_two_spellings_is_one_group_counted_by_asks() -> None:
    records = [
        asked("火星上的天气怎么样？"),
        asked("火星上的天气怎么样?"),
        asked("公司有健身房吗？"),
        asked("退费怎么算？", "answer"),
    ]
    groups = group_unanswered(records, None)
    assert [(g.sample, g.count) for g in groups] == [
        ("火星上的天气怎么样？", 2),
        ("公司有健身房吗？", 1),
    ]


def test_wordings_close_in_meaning_join_the_most_asked_one() -> None:
    records = [
        asked("Where can I get a parking permit?"),
        asked("Where can I get a parking permit for my car?"),
        asked("Where can I get a parking permit for my car?"),
        asked("Is there a gym at the office?"),
    ]
    groups = group_unanswered(records, HashingEmbeddings(dim=1024), similarity=0.8)
    assert groups[0].count == 3
    assert groups[0].sample == "Where can I get a parking permit for my car?"
    assert groups[0].wordings[1] == "Where can I get a parking permit?"
    assert [g.sample for g in groups[1:]] == ["Is there a gym at the office?"]


def test_without_texts_questions_are_grouped_by_hash_only() -> None:
    records = [asked("秘密问题", keep_text=False), asked("秘密问题", keep_text=False)]
    groups = group_unanswered(records, HashingEmbeddings())
    assert [(g.sample, g.count) for g in groups] == [(None, 2)]
