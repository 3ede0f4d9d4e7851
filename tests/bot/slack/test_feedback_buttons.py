"""The feedback buttons' value and the "what was wrong" form, as pure functions."""

from __future__ import annotations

import json

from bot.ports import Answered
from bot.slack.feedback_buttons import (
    NOTE_BLOCK,
    feedback_block,
    feedback_value,
    note_modal,
    thanks_blocks,
    vote_from,
)
from bot.slack.limits import BUTTON_VALUE
from rag import answer_hash, question_digest
from rag.chunks import Chunk
from rag.results import Answer, Hit
from tests.fakes.slack_blocks import block_problems, view_problems

HITS = tuple(
    Hit(Chunk(source=f"docs/{n}.md", text="流利级 4800 元。", n=n), 0.9) for n in range(12)
)
ANSWERED = Answered(asker="U0ALICE", scope="channel:C0GENERAL", index_version="abc123")


def _answer(question: str = "流利级的课程费是多少？") -> Answer:
    cited = "".join(f"[{n}]" for n in range(1, 13))
    return Answer(question, f"流利级 4800 元{cited}。", HITS)


def test_a_vote_reads_back_everything_withdrawing_needs() -> None:
    answer = _answer()
    vote = vote_from(
        feedback_value("down", answer, ANSWERED), answer="C1:1.2", user="U0BOB", index_version="x"
    )
    assert (vote.verdict, vote.question, vote.text_hash) == (
        "down",
        answer.question,
        answer_hash(answer.text),
    )
    assert (vote.scope, vote.asker, vote.index_version) == (
        "channel:C0GENERAL",
        "U0ALICE",
        "abc123",
    )
    assert vote.sources == tuple(f"docs/{n}.md#{n}" for n in range(8))


def test_a_long_question_drops_sources_then_shortens_and_stays_valid_json() -> None:
    answer = _answer("流利级的课程费是多少" * 400)
    value = feedback_value("up", answer, ANSWERED)
    assert len(value) <= BUTTON_VALUE
    data = json.loads(value)
    assert data["s"] == []
    assert answer.question.startswith(data["q"])
    assert data["h"] == answer_hash(answer.text), "the hash is of the whole answer, never cut"
    vote = vote_from(value, answer="C1:1.2", user="U0BOB", index_version="x")
    assert vote.question != answer.question
    assert vote.digest == question_digest(answer.question, ANSWERED.scope), "whole, never cut"


def test_buttons_without_an_asker_name_no_scope_so_nothing_is_withdrawn() -> None:
    vote = vote_from(
        feedback_value("down", _answer(), None), answer="C1:1.2", user="U0BOB", index_version="v"
    )
    assert vote.scope is None
    assert vote.index_version == "v"


def test_the_block_fits_slack_and_only_a_down_vote_offers_the_form() -> None:
    assert block_problems([feedback_block(_answer(), ANSWERED)]) == []
    vote = vote_from(
        feedback_value("down", _answer(), ANSWERED), answer="C1:1.2", user="U", index_version=""
    )
    _, down = thanks_blocks(vote, "zh")
    assert "accessory" in down[0]
    _, up = thanks_blocks(
        vote_from(
            feedback_value("up", _answer(), ANSWERED), answer="a", user="U", index_version=""
        ),
        "en",
    )
    assert "accessory" not in up[0]
    modal = note_modal("C1:1.2", "en")
    assert view_problems(modal) == []
    assert modal["blocks"][0]["block_id"] == NOTE_BLOCK
    assert modal["blocks"][0]["optional"] is True


def test_screen_readers_hear_the_buttons_in_the_askers_language() -> None:
    for question, up, down in (
        ("流利级的课程费是多少？", "回答有用", "回答有误或没用"),
        ("How much is the fluent level?", "Good answer", "Wrong or unhelpful answer"),
    ):
        [buttons] = feedback_block(_answer(question), ANSWERED)["elements"]
        assert buttons["positive_button"]["accessibility_label"] == up
        assert buttons["negative_button"]["accessibility_label"] == down
