"""Review cards, modals and the Home tab: within Slack's limits, readable back from the card."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from bot.review.records import Decision, OpenReview, Ticket
from bot.slack.home import age, home_view
from bot.slack.review_cards import (
    ACTIONS_BLOCK,
    APPROVE,
    EDIT,
    REJECT,
    TEXT_INPUT,
    ask_human_button,
    decided_card,
    gap_card,
    read_back,
    review_card,
    without_ask_button,
)
from bot.slack.review_modals import answer_modal, checked, edit_modal, reject_modal, submitted
from rag.problems import Problem
from tests.fakes.slack_blocks import block_problems, view_problems

TICKET = Ticket(
    review_id="r1",
    kind="review",
    channel="C0ASK",
    thread_ts="1718000000.000100",
    asker="UASKER",
    created=1718000000.0,
    sources=(("courses/levels.md#0", "ab" * 16, 0.81),),
)
QUESTION = "口语课有几级？每级多少课时？"
DRAFT = "口语课一共六级[1]，每级 12 课时[7]。"
PROBLEMS = [
    Problem("unknown_reference", "引用了不存在的编号 [7]，本次只提供了 1~2", DRAFT, refs=(7,)),
    Problem("ungrounded_number", "数字「12 课时」在所引资料 [7] 里找不到", DRAFT, refs=(7,)),
]
SOURCES = [("levels.md · 课程级别", 0.8123, None), ("refund.md · 退费 & 转班", 0.4, "https://x/y")]


def card(draft: str = DRAFT, question: str = QUESTION) -> list[dict[str, Any]]:
    _, blocks = review_card(
        TICKET,
        question=question,
        draft=draft,
        problems=PROBLEMS,
        sources=SOURCES,
        permalink="https://citebot-test.slack.com/archives/C0ASK/p1718000000000100",
    )
    return blocks


def all_text(blocks: list[dict[str, Any]]) -> str:
    return json.dumps(blocks, ensure_ascii=False)


def test_review_card_shows_asker_link_draft_problems_and_scored_sources() -> None:
    blocks = card()
    shown = all_text(blocks)

    assert block_problems(blocks) == []
    for expected in ("<@UASKER>", "<#C0ASK>", "p1718000000000100", "编号 [7]", "相关度 0–100"):
        assert expected in shown
    # the source's score 0.812 shown as a relevance out of 100, never the raw number
    assert "— 79" in shown
    assert "0.812" not in shown
    assert "退费 &amp; 转班" in shown
    assert read_back(blocks, "q") == QUESTION
    assert read_back(blocks, "d") == DRAFT


def test_every_card_button_carries_the_ticket() -> None:
    actions = next(block for block in card() if block.get("block_id") == ACTIONS_BLOCK)

    assert [element["action_id"] for element in actions["elements"]] == [APPROVE, EDIT, REJECT]
    assert {Ticket.from_value(element["value"]) for element in actions["elements"]} == {TICKET}


def test_long_draft_is_split_and_read_back_exactly() -> None:
    draft = ("退费按剩余课时计算[1]。" * 700)[:9000] + "<b>&"

    blocks = card(draft=draft)

    assert block_problems(blocks) == []
    assert read_back(blocks, "d") == draft


def test_card_speaks_the_language_of_the_question() -> None:
    english = all_text(card(question="How many days of annual leave do I get?", draft="20 [1]"))

    assert "Approve & send" in english
    assert "批准并发送" in all_text(card())


def test_decided_card_drops_buttons_and_shows_outcome_reviewer_and_time() -> None:
    decision = Decision("rejected", "UREVIEWER", 1718003600.0, reason="数字不对 <太离谱>")

    text, blocks = decided_card(card(), decision, question=QUESTION)

    assert block_problems(blocks) == []
    assert all(block.get("block_id") != ACTIONS_BLOCK for block in blocks)
    shown = all_text(blocks)
    assert "已驳回" in text
    assert "<@UREVIEWER>" in shown
    assert "<!date^1718003600^" in shown
    assert "&lt;太离谱&gt;" in shown
    assert read_back(blocks, "d") == DRAFT


def test_edited_card_shows_what_was_sent() -> None:
    decision = Decision("edited", "UREVIEWER", 1718003600.0)

    _, blocks = decided_card(card(), decision, question=QUESTION, sent="口语课共四级[1]。")

    assert block_problems(blocks) == []
    assert read_back(blocks, "s") == "口语课共四级[1]。"


def test_gap_card_has_answer_and_dismiss_and_the_near_misses() -> None:
    gap = Ticket("g1", "gap", "D0ASK", "1.1", "UASKER", created=1.0)
    _, blocks = gap_card(gap, question="公司有健身房吗？", sources=SOURCES, permalink="")

    assert block_problems(blocks) == []
    actions = next(block for block in blocks if block.get("block_id") == ACTIONS_BLOCK)
    assert [element["action_id"] for element in actions["elements"]] == [
        "gap_answer",
        "gap_dismiss",
    ]
    assert "levels.md" in all_text(blocks)
    assert read_back(blocks, "q") == "公司有健身房吗？"


def test_ask_button_is_replaced_by_a_note_once_used() -> None:
    ask = Ticket("ask", "gap", "C0ASK", "1.1", "UASKER", question="公司有健身房吗？")
    refusal: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": "资料里没写"}}
    ]
    button = ask_human_button(ask, question=ask.question)
    blocks: list[dict[str, Any]] = [
        *refusal,
        {"type": "actions", "block_id": "citebot_refusal", "elements": [button]},
    ]
    assert block_problems(blocks) == []
    assert Ticket.from_value(blocks[-1]["elements"][0]["value"]).question == ask.question

    after = without_ask_button(blocks, "已转给同事")

    assert all(block.get("block_id") != "citebot_refusal" for block in after)
    assert after[0] == refusal[0]
    assert "已转给同事" in all_text(after)


TAXI = "How do I expense a taxi?"


@pytest.mark.parametrize(
    ("view", "question"),
    [
        (edit_modal("{}", question=QUESTION, draft=DRAFT), QUESTION),
        (reject_modal("{}", question=QUESTION, draft=DRAFT), QUESTION),
        (answer_modal("{}", question=TAXI), TAXI),
    ],
)
def test_modals_are_within_slacks_limits_and_show_the_question(
    view: dict[str, Any], question: str
) -> None:
    assert view_problems(view) == []
    assert read_back(view["blocks"], "q") == question  # its own, not the other modals''


def test_edit_modal_is_prefilled_with_the_draft() -> None:
    view = edit_modal("{}", question=QUESTION, draft=DRAFT)
    field = next(block for block in view["blocks"] if block.get("block_id") == TEXT_INPUT)

    assert field["element"]["initial_value"] == DRAFT


def test_submitted_values_are_read_from_view_state() -> None:
    values = {
        TEXT_INPUT: {"value": {"type": "plain_text_input", "value": "  四级[1]  "}},
        "save_input": {"value": {"type": "checkboxes", "selected_options": [{"value": "1"}]}},
        "reason_input": {"value": {"type": "plain_text_input", "value": None}},
    }

    assert submitted(values, TEXT_INPUT) == "四级[1]"
    assert submitted(values, "reason_input") == ""
    assert checked(values, "save_input")
    assert not checked(values, "missing")


def test_home_lists_open_reviews_with_age_and_a_link_to_each_card() -> None:
    reviews = [
        OpenReview(TICKET, QUESTION, permalink="https://slack/archives/CREV/p1"),
        OpenReview(Ticket("g1", "gap", "C0ASK", "1.1", "UB", created=1718000000.0), "健身房？"),
    ]

    view = home_view(reviews, now=1718000000.0 + 7200, is_reviewer=True)

    assert view_problems(view) == []
    shown = all_text(view["blocks"])
    assert "2 h" in shown
    assert "https://slack/archives/CREV/p1" in shown
    assert "健身房" in shown


def test_home_hides_questions_from_people_who_are_not_reviewers() -> None:
    view = home_view([OpenReview(TICKET, QUESTION)], now=0.0, is_reviewer=False)

    assert QUESTION not in all_text(view["blocks"])


def test_home_stays_within_the_block_limit_with_many_reviews() -> None:
    many = [OpenReview(Ticket(f"r{i}", "review", "C", "1", "U"), "q") for i in range(300)]

    assert view_problems(home_view(many, now=0.0, is_reviewer=True)) == []


@pytest.mark.parametrize(
    ("seconds", "shown"), [(5, "1 min"), (600, "10 min"), (7200, "2 h"), (3 * 86400, "3 d")]
)
def test_age_is_short_and_human(seconds: float, shown: str) -> None:
    assert age(seconds) == shown


def test_edit_modal_says_when_a_long_draft_is_cut_to_fit() -> None:
    long_draft = "退费按剩余课时计算[1]。" * 400

    view = edit_modal("{}", question=QUESTION, draft=long_draft)

    def notes(view: dict[str, Any]) -> list[dict[str, Any]]:
        return [block for block in view["blocks"] if block["type"] == "context"]

    assert view_problems(view) == []
    assert "3000" in all_text(notes(view))
    assert notes(edit_modal("{}", question=QUESTION, draft=DRAFT)) == []


def test_a_card_slack_returns_escaped_still_reads_back_the_original() -> None:
    draft = "A <b> & C [1]"
    blocks = card(draft=draft)
    for block in blocks:
        if block.get("block_id") == "d.0":
            text = block["text"]["text"]
            block["text"]["text"] = (
                text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            )

    assert read_back(blocks, "d") == draft


def _labels(view: dict[str, Any]) -> list[str]:
    """The texts a modal's chrome shows: title, buttons, input labels, checkbox options."""
    labels = [view[key]["text"] for key in ("title", "submit", "close")]
    for block in view["blocks"]:
        if block["type"] == "input":
            labels.append(block["label"]["text"])
            labels += [o["text"]["text"] for o in block["element"].get("options", [])]
    return labels


@pytest.mark.parametrize("make", [edit_modal, reject_modal, answer_modal])
def test_every_modal_label_is_in_the_reviewers_language(make: Any) -> None:
    chinese = make("{}", question=QUESTION, **({} if make is answer_modal else {"draft": DRAFT}))
    english = make(
        "{}",
        question="How do I expense a taxi?",
        **({} if make is answer_modal else {"draft": "Taxis are reimbursed [1]."}),
    )
    assert chinese["close"]["text"] == "取消"
    assert english["close"]["text"] == "Cancel"
    assert all(re.search(r"[\u4e00-\u9fff]", label) for label in _labels(chinese)), _labels(chinese)
    assert not any(re.search(r"[\u4e00-\u9fff]", label) for label in _labels(english))
