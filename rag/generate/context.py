"""What a chosen quote needs beside it to read whole.

A quote that opens with a reference ("This…", "该…") needs the sentence before it; one that
opens with a pronoun for a person ("He acts mostly in comedy…") needs the sentence naming them,
also past sentences between that go on about them; and a rule is often finished by the sentence
after it (a symptom and its fix, a formula and its fee).
"""

from __future__ import annotations

import re

from rag.generate.quotable import Candidate

ANAPHOR = re.compile(
    r"^(?:该|其|此|这|这些|这个|这种|它|它们|他|她|他们|她们|上述|以上|前者|后者|同时|此外|另外|但|但是|否则)"
    r"|^(?:it|its|this|that|these|those|they|them|their|he|she|his|her|him|such|then|otherwise"
    r"|however|also|but)\b",
    re.IGNORECASE,
)
PERSONAL = re.compile(r"^(?:他|她|他们|她们)|^(?:he|she|his|her|him|they|their)\b", re.IGNORECASE)
"""A sentence about someone named earlier ("Dilip Joshi is an actor. He has appeared in … He
acts mostly in comedy …"): the sentence to bring is the one naming them."""
MAX_BACK = 3
"""How many sentences back the one naming a pronoun's person is looked for."""
SHARED_WITH_QUOTE = 2
"""Terms the next sentence (or paragraph) must share with the best quote to go along."""
FOLLOWING_CHARS = 220
"""The best quote brings the next sentence of its paragraph when that one is at most this long:
a rule and its exception, a symptom and its fix, usually sit side by side."""


def with_context(
    chosen: list[Candidate], candidates: list[Candidate], wanted: set[str]
) -> list[Candidate]:
    """``chosen`` and what the best quote needs: the sentence it refers back to, and the next
    one of its paragraph when that one goes on about it (it refers back, or names something
    the question names)."""
    if not chosen:
        return chosen
    best = chosen[0]
    taken = {c.position for c in chosen}
    extra: list[Candidate] = []
    before = antecedent(best, candidates)
    if before is not None and before.position not in taken:
        extra.append(before)
    after = candidates[best.position + 1] if best.position + 1 < len(candidates) else None
    if (
        not best.items
        and after is not None
        and after.source == best.source
        and after.line - best.line <= 2  # its paragraph, or the next (past one blank line)
        and after.position not in taken
        and len(after.text) <= FOLLOWING_CHARS
        and _goes_on(after, best, wanted)
    ):
        extra.append(after)
    return chosen + extra


def antecedent(quote: Candidate, candidates: list[Candidate]) -> Candidate | None:
    """The sentence a quote opening with a reference needs: the one before it, or for a pronoun
    standing for a person the nearest one before it (within :data:`MAX_BACK`) that does not
    itself open with a reference, i.e. the one that names them."""
    if not ANAPHOR.match(quote.text):
        return None
    steps = MAX_BACK if PERSONAL.match(quote.text) else 1
    for position in range(quote.position - 1, max(quote.position - steps, 0) - 1, -1):
        before = candidates[position]
        if before.source != quote.source:
            return None
        if steps == 1 or not ANAPHOR.match(before.text):
            return before
    return None


def _goes_on(after: Candidate, best: Candidate, wanted: set[str]) -> bool:
    """Whether the sentence after the best quote goes on about it: it refers back, names what
    the question names, or shares two terms with the quote ("退费金额 = … − 手续费。" then
    "手续费为可退金额的 5%，最低 50 元。")."""
    if ANAPHOR.match(after.text) or wanted & after.terms:
        return True
    return len((after.terms - after.topic) & (best.terms - best.topic)) >= SHARED_WITH_QUOTE
