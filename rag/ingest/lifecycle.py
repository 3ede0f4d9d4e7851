"""A document's lifecycle from what it says of itself: front matter, page state, first-line notice.

Front matter (YAML or TOML, :mod:`rag.ingest.markdown`): ``status`` (``current``, ``draft``,
``deprecated``, ``superseded``, ``archived``; a few common synonyms too), ``superseded_by``,
``effective``, ``expires``, ``updated`` (else ``modified``, what the wiki connectors write, or
``last_updated`` / ``lastmod``), and ``archived: true`` (a page exported in the archived state).
Dates are read in the forms people write them (``2025-03-01``, ``2025/3/1``, ``2025年3月1日``,
an ISO time) and kept as ISO dates.

Notices: the title and the first line of the body that is not a heading may say it, as
policies do: "本制度自2025年1月1日起废止" (in force up to the day before), "本办法已被《…》取代",
"（已废止）", "This policy was replaced by …", "Deprecated: …". Front matter wins over a
notice; the notice only fills what the front matter leaves unsaid. Without either, the document
is current and its last-updated date is the file's modification time.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path

from rag.lifecycle import CURRENT, STATUSES, Lifecycle, Status

_SYNONYMS: dict[str, Status] = {
    "active": "current",
    "published": "current",
    "in force": "current",
    "valid": "current",
    "生效": "current",
    "现行": "current",
    "有效": "current",
    "wip": "draft",
    "proposed": "draft",
    "草稿": "draft",
    "征求意见稿": "draft",
    "obsolete": "deprecated",
    "retired": "deprecated",
    "withdrawn": "deprecated",
    "废止": "deprecated",
    "已废止": "deprecated",
    "作废": "deprecated",
    "replaced": "superseded",
    "已取代": "superseded",
    "归档": "archived",
    "已归档": "archived",
}
_TRUE = frozenset({"true", "yes", "1", "on"})
_UPDATED_KEYS = ("updated", "last_updated", "last-updated", "lastmod", "modified")

_DATE = re.compile(
    r"(?P<y>(?:19|20)\d\d)\s*(?:[-/.年]\s*)(?P<m>\d{1,2})\s*(?:[-/.月]\s*)(?P<d>\d{1,2})\s*日?"
)
_ZH_DATE = r"((?:19|20)\d\d\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}\s*日?)"
_MARKUP = re.compile(r"^[\s>*_#\-!|:⚠️\[\]【】（）()]+")

_ZH_SELF = r"^(?:(?:注意|提示|说明|重要|公告)\s*[:：]?\s*)?(?:(?:本|该|此)[\u4e00-\u9fff]{0,8}?)?"
"""A Chinese notice speaks of this document: at the start of the line, after "本制度" and the
like ("原《2023版》已废止" in a new policy's first line is not about the new policy)."""
_ZH_ENDS = re.compile(
    rf"{_ZH_SELF}\s*自\s*{_ZH_DATE}\s*起\s*(?:废止|作废|停止执行|失效|不再执行|不再适用)"
)
_ZH_REPLACED = re.compile(
    rf"{_ZH_SELF}\s*(?:已被|已由|被)\s*《([^》]{{1,80}})》\s*(?:所)?(?:取代|替代|代替|替换)"
)
_ZH_LAPSED = re.compile(
    rf"{_ZH_SELF}\s*(?:已废止|已作废|已失效|已停止执行|已过期|已于[^，。；]{{0,20}}(?:废止|作废|失效))"
)
_ZH_ARCHIVED = re.compile(rf"{_ZH_SELF}\s*已归档")
_EN_SELF = (
    r"^(?:(?:note|notice|important|warning)\s*:\s*)?(?:this|the present)\s+"
    r"(?:policy|document|page|guide|handbook|procedure|process|version|standard|rule|notice)\s+"
)
"""An English notice speaks of this document ("This policy was replaced by …")."""
_EN_REPLACED = re.compile(
    rf"{_EN_SELF}(?:was|has been|is|been)\s+(?:replaced|superseded)\s+by\s+(?:the\s+)?"
    r"[\"“'‘*_]*(?P<by>[^\"”'’*_.;\n]{2,100})",
    re.IGNORECASE,
)
_EN_LEAD = re.compile(
    r"^(?P<word>deprecated|obsolete|superseded|archived|withdrawn)\b", re.IGNORECASE
)
_EN_LAPSED = re.compile(
    rf"{_EN_SELF}(?:is|was|has been)\s+(?:now\s+)?"
    r"(?P<word>deprecated|obsolete|withdrawn|retired|archived|rescinded)\b"
    rf"|{_EN_SELF}(?:is|was)\s+no longer (?:in (?:force|effect)|valid)",
    re.IGNORECASE,
)
_EN_WORD_STATUS: dict[str, Status] = {
    "deprecated": "deprecated",
    "obsolete": "deprecated",
    "withdrawn": "deprecated",
    "retired": "deprecated",
    "rescinded": "deprecated",
    "superseded": "superseded",
    "archived": "archived",
}
_TITLE_FLAG = re.compile(
    r"[（(【\[]\s*(?P<word>已废止|废止|已作废|作废|已失效|已归档|已取代|deprecated|obsolete|"
    r"superseded|archived)\s*[)）】\]]",
    re.IGNORECASE,
)
_TITLE_WORD: dict[str, Status] = {
    "已废止": "deprecated",
    "废止": "deprecated",
    "已作废": "deprecated",
    "作废": "deprecated",
    "已失效": "deprecated",
    "已归档": "archived",
    "已取代": "superseded",
}


def read_lifecycle(
    meta: dict[str, str], text: str, *, title: str = "", file_time: float | None = None
) -> Lifecycle:
    """``meta``: the front matter (lower-case keys, string values); ``text``: the body;
    ``file_time``: the file's modification time (seconds), the last-updated date of last
    resort."""
    stated = _from_front_matter(meta)
    noticed = _from_notice(title, _first_line(text))
    lifecycle = stated
    if lifecycle.status == "current" and noticed.status != "current":
        lifecycle = replace(
            lifecycle,
            status=noticed.status,
            superseded_by=lifecycle.superseded_by or noticed.superseded_by,
            notice=noticed.notice,
        )
    if not lifecycle.superseded_by and noticed.superseded_by:
        lifecycle = replace(lifecycle, superseded_by=noticed.superseded_by, notice=noticed.notice)
    if not lifecycle.expires and noticed.expires:
        lifecycle = replace(lifecycle, expires=noticed.expires, notice=noticed.notice)
    if lifecycle.superseded_by and lifecycle.status == "current":
        lifecycle = replace(lifecycle, status="superseded")  # naming a successor says it
    if not lifecycle.updated and file_time is not None:
        when = datetime.fromtimestamp(file_time, UTC).date().isoformat()
        lifecycle = replace(lifecycle, updated=when, dated=False)
    return CURRENT if lifecycle == CURRENT else lifecycle


def modified(path: Path) -> float | None:
    """The file's modification time (seconds), ``None`` when it cannot be read."""
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def iso_date(text: str) -> str:
    """``text`` as an ISO date, or "" when it holds none."""
    found = _DATE.search(text or "")
    if found is None:
        return ""
    try:
        return date(int(found["y"]), int(found["m"]), int(found["d"])).isoformat()
    except ValueError:
        return ""


def _from_front_matter(meta: dict[str, str]) -> Lifecycle:
    raw = meta.get("status", "").strip().lower()
    status: Status = "current"
    if raw in STATUSES:
        status = raw
    elif raw in _SYNONYMS:
        status = _SYNONYMS[raw]
    if status == "current" and meta.get("draft", "").strip().lower() in _TRUE:
        status = "draft"  # Hugo's and Jekyll's draft flag
    if meta.get("archived", "").strip().lower() in _TRUE:
        status = "archived"
    dates = (iso_date(meta.get(key, "")) for key in _UPDATED_KEYS)
    updated = next((found for found in dates if found), "")
    return Lifecycle(
        status=status,
        superseded_by=(meta.get("superseded_by") or meta.get("superseded-by") or "").strip(),
        effective=iso_date(meta.get("effective", "")),
        expires=iso_date(meta.get("expires", "")),
        updated=updated,
        dated=bool(updated),
    )


def _first_line(text: str) -> str:
    """The first line of the body that is not a heading, without its quote or bold markup."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or set(stripped) <= set("-=*_"):
            continue
        return _MARKUP.sub("", stripped)[:300]
    return ""


def _from_notice(title: str, line: str) -> Lifecycle:
    flag = _TITLE_FLAG.search(title)
    if flag is not None:
        word = flag["word"]
        status = _TITLE_WORD.get(word) or _EN_WORD_STATUS.get(word.lower(), "deprecated")
        return Lifecycle(status=status, notice=title)
    if not line:
        return CURRENT
    if (ends := _ZH_ENDS.search(line)) is not None:
        ended = iso_date(ends.group(1))
        if ended:
            last = date.fromordinal(date.fromisoformat(ended).toordinal() - 1).isoformat()
            return Lifecycle(expires=last, notice=line)
    if (by := _ZH_REPLACED.search(line)) is not None:
        return Lifecycle(status="superseded", superseded_by=by.group(1), notice=line)
    if (by := _EN_REPLACED.search(line)) is not None:
        return Lifecycle(status="superseded", superseded_by=by["by"].strip(), notice=line)
    if _ZH_LAPSED.search(line):
        return Lifecycle(status="deprecated", notice=line)
    if _ZH_ARCHIVED.search(line):
        return Lifecycle(status="archived", notice=line)
    if (lead := _EN_LEAD.match(line)) is not None or (lead := _EN_LAPSED.search(line)):
        word = (lead.groupdict().get("word") or "deprecated").lower()
        return Lifecycle(status=_EN_WORD_STATUS.get(word, "deprecated"), notice=line)
    return CURRENT
