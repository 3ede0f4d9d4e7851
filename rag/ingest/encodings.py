"""Bytes -> text for the plain-text formats, without guessing.

Documents in a Chinese organisation arrive as UTF-8 (with or without a BOM) or as GBK/GB18030
exported from older Windows tools. Strict UTF-8 is tried first because it is unambiguous: random
non-UTF-8 bytes almost never decode. Only then is charset-normalizer asked, and its answer is
accepted only when its best match is the GB family; GB18030 is a superset of GB2312 and GBK, so
the bytes are decoded as GB18030. Anything else (Latin-1, Shift-JIS, EUC-KR, short ambiguous
byte runs) is refused rather than decoded into plausible-looking nonsense that would then be
quoted to people as policy.
"""

from __future__ import annotations

import codecs

from charset_normalizer import from_bytes

from rag.errors import CitebotError

# Names charset-normalizer uses for the family GB18030 decodes correctly.
_GB_FAMILY = frozenset({"gb18030", "gbk", "gb2312", "cp936"})


class UndecodableText(CitebotError, ValueError):
    """The bytes are neither UTF-8 nor confidently GB18030; the message says why."""


def decode_text(data: bytes) -> str:
    """Decode document bytes as UTF-8 (BOM stripped) or detected GB18030.

    Raises UndecodableText for binary content (NUL bytes) and for text in any other encoding.
    """
    if data.startswith(codecs.BOM_UTF8):
        return _strict(data[len(codecs.BOM_UTF8) :], "utf-8")
    # UTF-16/32 text would pass here only as NUL-filled "binary"; none of our sources use it.
    if b"\x00" in data:
        msg = "binary content"
        raise UndecodableText(msg)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if _detected_as_gb(data):
        try:
            return data.decode("gb18030")
        except UnicodeDecodeError:
            pass  # detection said GB but the bytes disagree: refuse, don't guess
    msg = "not valid UTF-8 or GB18030 text"
    raise UndecodableText(msg)


def _strict(data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        msg = f"not valid {encoding.upper()} text after its byte-order mark ({error.reason})"
        raise UndecodableText(msg) from error


def _detected_as_gb(data: bytes) -> bool:
    best = from_bytes(data).best()
    if best is None:
        return False
    # charset-normalizer names one encoding but knows which others give the same text.
    candidates = {best.encoding, *best.could_be_from_charset}
    return bool(candidates & _GB_FAMILY)
