"""Every sentence the review desk shows reviewers and askers, in both languages.

A card speaks the language of the question on it (a Chinese course question is triaged by the
course desk, an English HR one by HR). Kept apart from the code so tone and translation can
be reviewed in one place; log texts live next to the code that logs. Platform-neutral: a
``{reviewer}`` is filled in by the platform in its own mention syntax (Slack: ``<@U…>``).
"""

from __future__ import annotations

from dataclasses import dataclass

from rag import Language, detect_language


@dataclass(frozen=True, slots=True)
class Texts:
    review_title: str
    gap_title: str
    asker: str
    direct_message: str
    original: str
    question: str
    draft: str
    problems: str
    whole_answer: str
    quoted: str
    """A sentence of the draft quoted above its problems (``{sentence}``)."""
    more_problems: str
    sources: str
    compared: str
    """Over the passages of two current documents that disagree, side by side."""
    near_misses: str
    approve: str
    edit: str
    reject: str
    answer: str
    dismiss: str
    ask_human: str
    sent: str
    reason: str
    outcomes: dict[str, str]
    edit_title: str
    reject_title: str
    answer_title: str
    send: str
    answer_label: str
    reject_explained: str
    save_label: str
    save_option: str
    only_reviewers: str
    already_decided: str
    not_delivered: str
    modal_failed: str
    draft_cut: str
    rejected_to_asker: str
    dismissed_to_asker: str
    colleague_answer: str
    asked_human: str
    already_asked: str
    empty_text: str
    unreadable: str
    home_title: str
    home_empty: str
    home_not_reviewer: str
    home_open: str
    home_more: str
    cancel: str
    """A modal's close button."""


ZH = Texts(
    review_title="待复核的回答",
    gap_title="知识缺口：有人想问同事",
    asker="提问人",
    direct_message="私信",
    original="原消息",
    question="问题",
    draft="草稿",
    problems="核对发现的问题",
    whole_answer="整个回答",
    quoted="「{sentence}」",
    more_problems="另有 {count} 个问题未列出。",
    sources="检索到的资料（相关度 0–100）",
    compared="两份现行文件的说法（对照）",
    near_misses="相近但不够相关的资料",
    approve="批准并发送",
    edit="修改后发送",
    reject="驳回",
    answer="回答",
    dismiss="忽略",
    ask_human="问同事",
    sent="实际发送的内容",
    reason="原因",
    outcomes={
        "approved": "✅ 已批准并发送",
        "edited": "✏️ 已修改并发送",
        "rejected": "⛔ 已驳回",
        "answered": "💬 已由同事回答",
        "dismissed": "🗑️ 已忽略",
    },
    edit_title="修改后发送",
    reject_title="驳回草稿",
    answer_title="回答提问人",
    send="发送",
    answer_label="发给提问人的回答",
    reject_explained="提问人会收到固定的拒答说明，并被告知可能会有同事跟进。原因只留在这里。",
    save_label="以后",
    save_option="有人再问同样的问题时，直接用这个回答",
    only_reviewers="只有复核人员可以操作这张卡片。",
    already_decided="这条已由 {reviewer} 于 {date} 处理（{outcome}）。",
    not_delivered="没能把结果发到提问人的对话里，卡片保持未处理，请稍后再试。",
    modal_failed="表单没能打开（Slack 只给 3 秒），请再点一次。",
    draft_cut="草稿超过表单能容纳的 {limit} 字，这里只显示前 {limit} 字；发送的就是框里的内容。",
    rejected_to_asker="同事看过了这个问题，可能会在这里跟进。",
    dismissed_to_asker="同事看过了这个问题：资料里没有这方面的规定，目前也没有可以补充的。",
    colleague_answer="💬 同事 {reviewer} 的回答：",
    asked_human="已转给同事，他们会在这里回复你。",
    already_asked="已经转给同事了，请稍候。",
    empty_text="请填写要发送的内容。",
    unreadable="这张卡片已无法读取，请在原对话里直接回复提问人。",
    home_title="等待复核",
    home_empty="现在没有待处理的复核。🎉",
    home_not_reviewer="这里列出等待复核的回答，仅复核人员可见。",
    home_open="打开卡片",
    home_more="还有 {count} 条未列出。",
    cancel="取消",
)

EN = Texts(
    review_title="Answer waiting for review",
    gap_title="Knowledge gap: someone asked for a person",
    asker="Asked by",
    direct_message="a direct message",
    original="original message",
    question="Question",
    draft="Draft",
    problems="What the checker found",
    whole_answer="The answer as a whole",
    quoted="“{sentence}”",
    more_problems="{count} more problems not listed.",
    sources="Retrieved sources (relevance 0–100)",
    compared="What the two current documents say, side by side",
    near_misses="Near misses (not relevant enough)",
    approve="Approve & send",
    edit="Edit & send",
    reject="Reject",
    answer="Answer",
    dismiss="Dismiss",
    ask_human="Ask a human",
    sent="What was sent",
    reason="Reason",
    outcomes={
        "approved": "✅ Approved & sent",
        "edited": "✏️ Edited & sent",
        "rejected": "⛔ Rejected",
        "answered": "💬 Answered by a colleague",
        "dismissed": "🗑️ Dismissed",
    },
    edit_title="Edit & send",
    reject_title="Reject draft",
    answer_title="Answer the asker",
    send="Send",
    answer_label="Answer to send to the asker",
    reject_explained=(
        "The asker gets the fixed refusal sentence and is told a colleague may follow up. "
        "The reason stays on this card."
    ),
    save_label="Next time",
    save_option="Give this answer when someone asks the same question",
    only_reviewers="Only reviewers can act on this card.",
    already_decided="{reviewer} already handled this on {date} ({outcome}).",
    not_delivered=(
        "I couldn't post the outcome in the asker's thread, so the card stays open; "
        "please try again in a moment."
    ),
    modal_failed="The form didn't open in time (Slack allows 3 seconds); please click again.",
    draft_cut=(
        "The draft is longer than a form can hold ({limit} characters); only the start is "
        "shown, and what is in the box is what will be sent."
    ),
    rejected_to_asker="A colleague has looked at this and may follow up here.",
    dismissed_to_asker=(
        "A colleague has looked at this: our documents don't cover it and there is nothing to "
        "add for now."
    ),
    colleague_answer="💬 Answer from a colleague, {reviewer}:",
    asked_human="I've passed this to a colleague; they'll reply here.",
    already_asked="This was already passed to a colleague; they'll reply here.",
    empty_text="Please write what should be sent.",
    unreadable="This card can no longer be read; please reply to the asker in their thread.",
    home_title="Waiting for review",
    home_empty="Nothing is waiting for review. 🎉",
    home_not_reviewer="Open reviews are listed here for reviewers only.",
    home_open="Open card",
    home_more="{count} more not listed.",
    cancel="Cancel",
)

TEXTS: dict[Language, Texts] = {"zh": ZH, "en": EN}


CONVERSATION: dict[Language, str] = {
    "zh": "对话中此前的问题：{turns}　·　原话：{asked}",
    "en": "Earlier in the conversation: {turns} · as written: {asked}",
}
"""Under a follow-up's question on a review card: what it was read after, and how it was put."""


def conversation_line(question: str, turns: tuple[str, ...], asked: str) -> str:
    """The conversation that led to ``question`` (its earlier standalone questions)."""
    language = detect_language(question)
    return CONVERSATION[language].format(turns=" → ".join(turns), asked=asked or question)


def texts_for(sample: str) -> Texts:
    """The texts in the language of ``sample`` (the question on the card)."""
    return TEXTS[detect_language(sample)]
