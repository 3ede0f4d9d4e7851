"""Claim rules: a cited sentence must be backed by what it cites, not only share a few words.

Each test pins one rule: it fails when the rule stops catching its fault, and the faithful
counterpart beside it fails when the rule starts flagging what it should pass.
"""

from __future__ import annotations

from rag.check.citations import check
from rag.check.entities import Grounds, missing_names, named_things
from rag.check.modality import flipped
from rag.check.support import content_words, windows
from tests.rag.factories import LEAVE_TEXT, make_hit

NEWS = (
    "新华社柏林电 德国总统施泰因迈尔当天在柏林会见了来访的法国总理。"
    "双方讨论了欧洲经济形势和能源合作。会谈后两国签署了三项合作文件。"
)


def kinds(text: str, source: str, *, question: str = "") -> list[str]:
    return [p.kind for p in check(text, [make_hit(source)], question=question).problems]


# --- unsupported_claim ---------------------------------------------------------------------


def test_a_sentence_its_source_mostly_does_not_say_is_unsupported() -> None:
    text = "德国总统表示，欧洲将在明年全面取消对天然气的进口关税，并设立新的边境检查站[1]。"
    report = check(text, [make_hit(NEWS)])
    assert [p.kind for p in report.problems] == ["unsupported_claim"]
    assert report.problems[0].message.startswith("所引资料 [1] 里找不到这句话的大部分内容")
    assert report.problems[0].sentence == text


def test_a_sentence_taken_from_its_source_is_supported() -> None:
    assert check("双方讨论了欧洲经济形势和能源合作[1]。", [make_hit(NEWS)]).ok


def test_an_english_paraphrase_with_other_inflections_is_supported() -> None:
    text = "Unused leave expires at the end of March in the year following [1]."
    assert check(text, [make_hit(LEAVE_TEXT)]).ok


def test_an_english_claim_its_source_does_not_make_is_unsupported() -> None:
    text = (
        "Unused leave is converted into pension contributions, company shares, gym vouchers "
        "or cinema tickets through payroll [1]."
    )
    assert "unsupported_claim" in kinds(text, LEAVE_TEXT)


def test_support_is_judged_in_a_window_not_across_a_whole_long_passage() -> None:
    filler = " ".join(f"Paragraph {n} is about office plants." for n in range(10))
    source = f"Managers approve leave. {filler} Payroll pays pensions."
    found = windows(source, "en")
    wanted = content_words("Managers approve pensions from payroll.", "en")
    assert all(len(window.held(wanted)) < len(wanted) for window in found)


def test_a_calculation_sentence_is_left_to_the_number_rules() -> None:
    text = "流利级原价 4800 元[1]。两者合计 4800 + 280 = 5080 元[1]。"
    source = "流利级原价 4800 元，教材费 280 元。"
    assert "unsupported_claim" not in kinds(text, source)


# --- ungrounded_name -----------------------------------------------------------------------


def test_a_person_the_source_does_not_name_is_caught_and_named() -> None:
    text = "德国总统默克尔当天在柏林会见了来访的法国总理[1]。"
    report = check(text, [make_hit(NEWS)])
    assert [p.kind for p in report.problems] == ["ungrounded_name"]
    assert "「默克尔」不在所引资料 [1] 里" in report.problems[0].message


def test_a_name_from_the_question_is_grounded() -> None:
    text = "德国总统施泰因迈尔在柏林会见了来访的英国首相卡梅伦[1]。"
    assert "ungrounded_name" in kinds(text, NEWS)
    assert "ungrounded_name" not in kinds(text, NEWS, question="英国首相卡梅伦去柏林见了谁？")


def test_an_english_name_missing_from_the_source_gets_an_english_message() -> None:
    source = "Rebecca Bunch is the main character of Crazy Ex-Girlfriend and sings most songs."
    report = check("Rebecca Smith sings the songs in Crazy Ex-Girlfriend [1].", [make_hit(source)])
    assert [p.kind for p in report.problems] == ["ungrounded_name"]
    assert report.problems[0].message.startswith("“Smith” appears in neither the cited source")
    report = check(
        "The songs are sung by Joan Smith in Crazy Ex-Girlfriend [1].", [make_hit(source)]
    )
    assert report.problems[0].message.startswith("“Joan”, “Smith” appear in neither the cited")


def test_english_names_match_across_inflection_and_demonyms() -> None:
    grounds = Grounds(["The show was made in Britain and aired on the BBC's channels."])
    assert missing_names("It was a British show on the BBC.", "en", grounds) == []
    assert missing_names("It was a French show on the BBC.", "en", grounds) == ["French"]


def test_capitalised_sentence_starts_weekdays_and_months_are_not_names() -> None:
    assert named_things("However, the office is closed on Monday in March.", "en") == []


def test_codes_and_quoted_terms_are_named_things() -> None:
    found = named_things('Use the "Blue Form" and code HR-7 for BiVO4 samples.', "en")
    assert {"Blue Form", "HR-7", "BiVO4"} <= set(found)


def test_a_quote_is_grounded_whatever_spaces_the_marker_left() -> None:
    grounds = Grounds(["他说：“天下那得如此好秀才。”"])
    assert missing_names("他说“天下那得如此好秀才 。”", "zh", grounds) == []


# --- modality_mismatch ---------------------------------------------------------------------


def test_a_prohibition_stated_as_a_duty_is_caught() -> None:
    source = "开课后不得申请全额退费。"
    report = check("开课后必须申请全额退费[1]。", [make_hit(source)])
    assert "modality_mismatch" in [p.kind for p in report.problems]


def test_can_against_cannot_is_a_flip_and_the_same_side_is_not() -> None:
    assert flipped("You can cancel the course", "You cannot cancel the course") == ["permission"]
    assert flipped("可以退教材费", "教材发放后不可以退") == ["permission"]
    assert flipped("You may apply online", "You may apply online or by post") == []
    assert flipped("可以转班", "可以转班，但不可以退费") == []  # the source says both


# --- numbers -------------------------------------------------------------------------------


def test_digits_inside_a_code_are_not_amounts() -> None:
    source = "Researchers use BiVO4 and ZnO photocatalysts."
    assert check("Researchers also use BiVO4 as a photocatalyst [1].", [make_hit(source)]).ok


def test_a_rank_named_in_the_question_grounds_the_same_rank_in_the_answer() -> None:
    source = "Fees for a project taken over mid-way are based on staffing levels or a fixed fee."
    text = "Fees for taking over a project from Stage 3 are based on staffing levels [1]."
    question = "How are fees calculated when taking over a project from Stage 3?"
    assert "ungrounded_number" in kinds(text, source)
    assert check(text, [make_hit(source)], question=question).ok
