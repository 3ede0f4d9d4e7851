"""Must / must not, can / cannot: a sentence that flips what its source allows or requires.

"退费须在开课前申请" cited for "开课后不得退费" shares almost every word with its source, so
word coverage passes it; the meaning is the opposite. For each duty or permission a sentence
states, this module asks which way the best-matching source window states it:

    必须 / 须 / 应当 / must / required     vs  不得 / 禁止 / 无需 / 不必 / 可选 / must not /
                                              do not / never / optional
    可以 / 可在… / 允许 / can / allowed /    vs  不可以 / 不能 / 不接受 / 不予 / 请勿 / cannot /
    acceptable / you may                        never

A mismatch is the sentence stating one side while the window states only the other, *about
the same thing*: only the window's clauses that share a content term with the sentence's
modal clause are compared ("可以转班，但不可以退费" says nothing against "可以转班"; "you cannot
park here" nothing against "you can cancel the course"). A window that states neither says
nothing about it (coverage judges that), and one that states both is left alone.

English "may" is not read as permission: in prose it says what is possible ("people may not
realise…"), and reading it as a permission flagged faithful sentences on the tuning set. "You
may" is: addressed to the reader it grants something ("You may share your password with IT"
against "Never share your password"), and it changed no decision on the tuning set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rag.check.clauses import clauses
from rag.reading import claim_terms

Side = Literal["yes", "no"]


@dataclass(frozen=True, slots=True)
class Modal:
    """One duty or permission, with how texts affirm and deny it."""

    name: str
    yes: re.Pattern[str]
    no: re.Pattern[str]


def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text, re.IGNORECASE)


MODALS = (
    Modal(
        "obligation",
        _pattern(r"必须|务必|须|应当|\bmust\b(?!\s+not)|\bis required\b|\bare required\b"),
        _pattern(
            r"不得|禁止|严禁|无需|无须|不必|不需要|不用|不要求|没有必须|并非必须|不是必须"
            r"|\bmust\s+not\b|\bmustn'?t\b"
            r"|\bneed\s+not\b|\bneedn'?t\b|\bnot required\b|\bprohibited\b|\bforbidden\b"
            r"|\boptional\b|可选"
            r"|\bnever\b|\bdo\s+not\b|\bdon'?t\b"
        ),
    ),
    Modal(
        "permission",
        _pattern(
            r"(?<![不])(?:可以|允许|能够|可(?=[在于向]|免费|申请|结转|享受|获得|报销|办理))"
            r"|\bcan\b(?!\s*not)|\b(?:is|are) (?:allowed|acceptable|permitted)\b"
            r"|\byou\s+may\b(?!\s+not)"
        ),
        _pattern(
            r"不可以|不能|不可|不允许|不准|禁止|不得|不接受|不受理|不予|请勿|切勿|不要(?!求)"
            r"|\bcannot\b|\bcan'?t\b|\bcan\s+not\b"
            r"|\bnot allowed\b|\bnot permitted\b|\bprohibited\b|\bnever\b"
        ),
    ),
    # What the reader may do, against what a policy tells the reader not to: "You may install
    # …" against the imperative "Do not install …" (opening a clause or a list item). Only the
    # addressed forms: elsewhere "do not" is plain negation ("people who do not …").
    Modal(
        "permission",
        _pattern(r"\byou\s+(?:may|can)\b(?!\s*not)"),
        _pattern(
            r"(?:^|[-*•]\s)\s*(?:please\s+)?(?:do\s+not|don'?t|never)\b"
            r"|\byou\s+(?:may\s+not|cannot|can'?t|must\s+not)\b"
        ),
    ),
)


def _sides(modal: Modal, text: str) -> set[Side]:
    sides: set[Side] = set()
    if modal.no.search(text):
        sides.add("no")
    if modal.yes.search(modal.no.sub(" ", text)):  # "不可以" is not also "可以"
        sides.add("yes")
    return sides


def flipped(sentence: str, source: str) -> list[str]:
    """The duties or permissions ``sentence`` states one way and ``source`` only the other."""
    found: list[str] = []
    for modal in MODALS:
        stating = [clause for clause in clauses(sentence) if _sides(modal, clause)]
        said = set().union(*(_sides(modal, clause) for clause in stating))
        if len(said) != 1:
            continue  # says neither or both: nothing to compare (and the source isn't read)
        topic = _topic(modal, " ".join(stating))
        about = [c for c in clauses(source) if _sides(modal, c) and topic & _topic(modal, c)]
        held = set().union(*(_sides(modal, clause) for clause in about))
        if len(held) == 1 and said != held:
            found.append(modal.name)
    return list(dict.fromkeys(found))  # two readings of a permission are one flip


def _topic(modal: Modal, clause: str) -> set[str]:
    """What a clause is about: its content terms, the modal words themselves left out."""
    return claim_terms(modal.yes.sub(" ", modal.no.sub(" ", clause)))
