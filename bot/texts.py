"""Every sentence the Slack edge shows people, in both languages, in one place.

Log texts live next to the code that logs; these are for askers and clickers only, so they can
be reviewed (tone, accuracy, translation) without reading the listeners. The answer core's own
fixed sentences (refusal, model failure) stay in :mod:`rag.messages`.
"""

from __future__ import annotations

from rag import Language, Stage

WORKING: dict[Language, str] = {"zh": "正在查资料…", "en": "Looking it up…"}

STATUS: dict[Language, dict[Stage, str]] = {
    "zh": {
        "retrieving": "正在查找资料…",
        "generating": "正在起草回答…",
        "checking": "正在核对出处…",
    },
    "en": {
        "retrieving": "Looking through the documents…",
        "generating": "Drafting the answer…",
        "checking": "Checking the sources…",
    },
}
"""The thread's status (Slack ``assistant.threads.setStatus``) at each stage of an answer."""

FEEDBACK_THANKS: dict[str, dict[Language, str]] = {
    "up": {"zh": "谢谢反馈！", "en": "Thanks for the feedback!"},
    "down": {
        "zh": "谢谢反馈，我们会核对这个回答。",
        "en": "Thanks — we'll look into this answer.",
    },
}
"""Shown only to the person who clicked 👍 / 👎 under an answer."""

FEEDBACK_LABELS: dict[Language, dict[str, str]] = {
    "zh": {"up": "回答有用", "down": "回答有误或没用"},
    "en": {"up": "Good answer", "down": "Wrong or unhelpful answer"},
}
"""What a screen reader says for the 👍 / 👎 under an answer."""

FEEDBACK_TELL: dict[Language, str] = {"zh": "说说哪里不对", "en": "Tell us what was wrong"}
"""The button beside the thanks for a 👎: opens the optional "what was wrong" form."""

FEEDBACK_FORM: dict[Language, dict[str, str]] = {
    "zh": {
        "title": "哪里不对？",
        "label": "这个回答哪里不对？（可不填）",
        "hint": "例如：费用写错了，应该是 5600 元。",
        "submit": "提交",
        "close": "取消",
    },
    "en": {
        "title": "What was wrong?",
        "label": "What was wrong with this answer? (optional)",
        "hint": "E.g. the fee is wrong, it should be 5,600.",
        "submit": "Send",
        "close": "Cancel",
    },
}

HELP = (
    "我只根据公司文档回答，并给出处。直接问我，例如：「退费怎么算？」\n"
    "I answer only from our documents and cite them. Just ask, e.g. “How are refunds calculated?”"
)
"""For an empty question: both languages, since there is nothing to tell them apart by."""

QUESTION_CUT: dict[Language, str] = {
    "zh": "你的问题太长，我只读了前 {limit} 个字。",
    "en": "Your question was very long; I read only the first {limit} characters.",
}

UNVERIFIED: dict[Language, str] = {
    "zh": "我起草了一个回答，但没能核对上出处，已转给人工复核，稍后在这里回复你。",
    "en": (
        "I drafted an answer but couldn't verify it against the sources, so a colleague is "
        "reviewing it; you'll get the reply here."
    ),
}

UNVERIFIED_CONSOLE: dict[Language, str] = {
    "zh": (
        "我起草了一个回答，但没能核对上出处。在 Slack 或飞书里它会转给人工复核，不会发给提问人；"
        "控制台没有复核，这里也不会再有回复：草稿和发现的问题列在下面，供你检查。"
    ),
    "en": (
        "I drafted an answer but couldn't verify it against the sources. In Slack or Feishu it "
        "would go to a reviewer, not to the asker; the console has no review and no reply will "
        "follow here: the draft and the problems found are below for you to check."
    ),
}
"""The console's :data:`UNVERIFIED`: no colleague reviews it and nothing comes back later."""

CONTINUED: dict[Language, str] = {"zh": "（续）", "en": "(continued)"}

CACHED: dict[Language, str] = {
    "zh": "缓存的回答 · 首次回答于 {date}",
    "en": "cached answer · first given {date}",
}

REVIEWED: dict[Language, str] = {
    "zh": "已由 {reviewer} 于 {date} 审核",
    "en": "reviewed by {reviewer} on {date}",
}

SOURCE_HEADER: dict[Language, str] = {"zh": "出处 [{n}]", "en": "Source [{n}]"}
SOURCE_FILE: dict[Language, str] = {"zh": "文件", "en": "File"}
SOURCE_SECTION: dict[Language, str] = {"zh": "章节", "en": "Section"}
SOURCE_SCORE: dict[Language, str] = {"zh": "相关度", "en": "Relevance"}
SOURCE_LINK: dict[Language, str] = {"zh": "原文", "en": "Original"}
SOURCE_UPDATED: dict[Language, str] = {"zh": "更新于", "en": "Updated"}

SOURCE_STATUS: dict[Language, dict[str, str]] = {
    "zh": {
        "superseded": "已被取代",
        "deprecated": "已废止",
        "archived": "已归档",
        "expired": "已过期",
        "draft": "草稿",
        "upcoming": "尚未生效",
    },
    "en": {
        "superseded": "superseded",
        "deprecated": "deprecated",
        "archived": "archived",
        "expired": "expired",
        "draft": "draft",
        "upcoming": "not yet in force",
    },
}
"""A cited document that is not current, said beside its date."""

SOURCE_CHANGED: dict[Language, str] = {
    "zh": "这段资料在回答之后更新过，下面是现在的内容。",
    "en": "This passage has changed since the answer was given; here is its current text.",
}

SOURCE_GONE: dict[Language, str] = {
    "zh": "这段资料在回答之后已被删除或移动，无法显示。",
    "en": "This passage has been removed or moved since the answer was given.",
}

SOURCE_UNREADABLE: dict[Language, str] = {
    "zh": "这个按钮已失效，请重新提问。",
    "en": "This button no longer works; please ask again.",
}

NOT_ENABLED_HERE: dict[Language, str] = {
    "zh": "我在这个频道没有启用，不能在这里回答。你可以私信问我。",
    "en": "I'm not enabled in this channel, so I can't answer here. You can ask me in a direct "
    "message.",
}
"""A mention in a channel SCOPES_FILE does not enable, when the asker's DMs are enabled."""

NOT_ENABLED: dict[Language, str] = {
    "zh": "我在这里没有启用，不能回答。请问问管理员我在哪些频道可以使用。",
    "en": "I'm not enabled here, so I can't answer. Your workspace admin knows where I can help.",
}
"""A mention or DM where SCOPES_FILE enables neither this place nor the asker's DMs."""

SOURCE_NOT_HERE: dict[Language, str] = {
    "zh": "这段资料不能在这里显示。",
    "en": "This passage can't be shown here.",
}
"""A citation button clicked where the passage's document may not be seen (SCOPES_FILE)."""
