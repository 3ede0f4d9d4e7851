"""Text bytes are decoded as UTF-8 or detected GB18030, and anything else is refused, not guessed.

A wrongly guessed encoding produces plausible nonsense that would be quoted to people as policy,
so each refusal here matters as much as each success.
"""

from __future__ import annotations

import codecs

import pytest

from rag.ingest.encodings import UndecodableText, decode_text

POLICY_ZH = (
    "退费与转班制度：流利级课程费 4800 元，教材费 280 元不予退还。"
    "每个级别 16 课时，每课时 45 分钟，在八周内完成。"
)
POLICY_EN = "Refunds are paid within 10 working days; the fee is 5% with a 50 CNY minimum."


@pytest.mark.parametrize("text", [POLICY_ZH, POLICY_EN, POLICY_ZH + "\n" + POLICY_EN, ""])
def test_utf8_is_decoded_as_is(text: str) -> None:
    assert decode_text(text.encode("utf-8")) == text


def test_utf8_byte_order_mark_is_removed() -> None:
    assert decode_text(codecs.BOM_UTF8 + POLICY_ZH.encode("utf-8")) == POLICY_ZH


def test_byte_order_mark_followed_by_invalid_utf8_is_refused() -> None:
    with pytest.raises(UndecodableText, match="after its byte-order mark"):
        decode_text(codecs.BOM_UTF8 + b"\xff\xfe policy")


def test_gbk_chinese_is_detected_and_decoded() -> None:
    assert decode_text(POLICY_ZH.encode("gbk")) == POLICY_ZH


def test_gb18030_only_characters_survive() -> None:
    # U+20000 and the euro sign need GB18030's four-byte / extended forms; GBK cannot hold them.
    text = "学员姓名：王𠀀明，备注：€ 欧元支付。" + POLICY_ZH
    with pytest.raises(UnicodeEncodeError):
        text.encode("gbk")
    assert decode_text(text.encode("gb18030")) == text


def test_gbk_document_with_windows_line_endings_is_decoded() -> None:
    text = "# 退费制度\r\n\r\n" + POLICY_ZH + "\r\n" + POLICY_ZH
    assert decode_text(text.encode("gbk")) == text


@pytest.mark.parametrize(
    "data",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00",
        b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00",
        "退费".encode("utf-16"),
        b"\x00" * 64,
    ],
    ids=["png", "zip", "utf-16", "nul-bytes"],
)
def test_binary_content_is_refused(data: bytes) -> None:
    with pytest.raises(UndecodableText, match="binary content"):
        decode_text(data)


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("Café déjà vu, naïve résumé. Les élèves paient 4800 francs.", "latin-1"),
        ("Café déjà vu — “quotes” and naïve résumé.", "cp1252"),
        ("返金は残りのレッスン数に応じて計算されます。教材費は返金できません。", "shift_jis"),
        ("환불은 남은 수업 수에 따라 계산됩니다. 교재비는 환불되지 않습니다.", "euc-kr"),
    ],
    ids=["latin-1", "cp1252", "shift-jis", "euc-kr"],
)
def test_other_encodings_are_refused_not_guessed(text: str, encoding: str) -> None:
    with pytest.raises(UndecodableText, match="not valid UTF-8 or GB18030"):
        decode_text(text.encode(encoding))


def test_too_short_gbk_to_tell_apart_is_refused_rather_than_guessed() -> None:
    # Eight characters are not enough evidence; such a file must be saved as UTF-8.
    with pytest.raises(UndecodableText):
        decode_text("教材费不予退还。".encode("gbk"))


def test_refusal_is_a_value_error_with_a_reason() -> None:
    with pytest.raises(ValueError, match=r"\S"):
        decode_text("Ångström".encode("latin-1"))
