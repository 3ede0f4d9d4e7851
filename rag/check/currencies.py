"""One currency, written many ways: "RMB 450" where the policy writes "450 CNY" (or "450 元",
"¥450") names the same money, not a name the source lacks."""

from __future__ import annotations

import re
from collections.abc import Iterable

_WRITTEN = (
    (frozenset({"CNY", "RMB"}), r"\b(?:CNY|RMB|yuan|renminbi)\b|[元¥￥]|人民币"),
    (frozenset({"USD"}), r"\bUSD\b|US\$|\bdollars?\b|美元"),
    (frozenset({"EUR"}), r"\bEUR\b|€|\beuros?\b|欧元"),
    (frozenset({"GBP"}), r"\bGBP\b|£|\bpounds?\s+sterling\b|英镑"),
    (frozenset({"HKD"}), r"\bHKD\b|HK\$|港币|港元"),
)
_PATTERNS = tuple((codes, re.compile(written, re.IGNORECASE)) for codes, written in _WRITTEN)


def same_currency(code: str, texts: Iterable[str]) -> bool:
    """Whether ``code`` ("RMB") is a currency that ``texts`` write in some form."""
    pattern = next((written for codes, written in _PATTERNS if code.upper() in codes), None)
    return pattern is not None and any(pattern.search(text) for text in texts)
