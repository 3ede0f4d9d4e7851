"""What the asker's thread gets once a person has decided, as pure functions.

Approved and edited answers go through the Slack edge's own renderer (:func:`bot.slack.reply.
render_answer`), so they look like every other answer — citation buttons included — plus the
"reviewed by @x on <date>" line. A rejection is the answer core's fixed refusal sentence and a
promise no stronger than "a colleague may follow up"; a colleague's own answer says whose it is;
a dismissed knowledge gap tells the asker a person looked and has nothing to add.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.ports import Answered
from bot.review.texts import texts_for
from bot.slack.limits import MESSAGE_TEXT, SECTION_SAFE
from bot.slack.mrkdwn import escape, split_text, to_mrkdwn
from bot.slack.reply import SlackMessage, render_answer, section
from rag import Answer, Hit, Language, Provenance, detect_language, refusal_text


def reviewed_answer(
    question: str,
    text: str,
    hits: Sequence[Hit],
    *,
    reviewer: str,
    at: datetime,
    answered: Answered | None = None,
) -> list[SlackMessage]:
    """``answered``: the asker and scope, so two 👎 can withdraw this answer too."""
    provenance = Provenance(reviewed_by=reviewer, reviewed_at=at)
    answer = Answer(question, text, tuple(hits), provenance=provenance)
    return render_answer(answer, detect_language(question), answered)


def rejection(question: str) -> list[SlackMessage]:
    sentence = f"{refusal_text(detect_language(question))}\n{texts_for(question).rejected_to_asker}"
    return [SlackMessage(text=sentence, blocks=[section(escape(sentence))])]


VOTES_SEEN: dict[Language, str] = {
    "zh": "同事看过了大家对这个回答的反馈。",
    "en": "A colleague has looked at the feedback on this answer.",
}
"""A dismissed card of an answer people voted down: said in that answer's thread."""


def dismissal(question: str, *, voted: bool = False) -> list[SlackMessage]:
    """The asker who asked for a person hears that one looked, rather than nothing at all;
    under an answer people voted down (``voted``), that the feedback was seen."""
    words = texts_for(question)
    sentence = VOTES_SEEN[detect_language(question)] if voted else words.dismissed_to_asker
    return [SlackMessage(text=sentence, blocks=[section(escape(sentence))])]


def colleague_answer(question: str, text: str, *, reviewer: str) -> list[SlackMessage]:
    """The reviewer's own words (at most 3000 characters, the modal's limit), attributed."""
    header = texts_for(question).colleague_answer.format(reviewer=f"<@{reviewer}>")
    pieces = split_text(to_mrkdwn(text), SECTION_SAFE)
    blocks = [section(header), *(section(piece) for piece in pieces if piece.strip())]
    return [SlackMessage(text=f"{header}\n{text}"[:MESSAGE_TEXT], blocks=blocks)]
