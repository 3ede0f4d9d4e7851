"""What ``rag index`` says about the files it did not index: counted by reason, so the counts
add up to the folder ("skipped: 19 (16 in hidden folders, 3 unsupported: .bin, .png)").

Hidden files and folders (``.git``, ``.github``, ``.DS_Store``) are skipped on purpose and only
counted, a hidden folder with the files under it; every other skipped file gets its own line,
since a person can act on it (save it as UTF-8, remove the password, …).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rag.ingest.loaders import HIDDEN_FILE, HIDDEN_FOLDER, LOCK_FILE, Skipped, hidden

_UNSUPPORTED = "unsupported file type "
_NAMED = {
    HIDDEN_FOLDER: "in hidden folders",
    HIDDEN_FILE: "hidden files",
    LOCK_FILE: "Office lock files",
}


def _kind(item: Skipped) -> str:
    if item.reason in _NAMED:
        return _NAMED[item.reason]
    if item.reason.startswith(_UNSUPPORTED):
        return "unsupported"
    if item.reason.startswith("same file as "):
        return "symbolic link aliases"
    return item.reason.split(":")[0].split(" (")[0]


def skipped_count(skipped: Sequence[Skipped]) -> str:
    """``19 (16 in hidden folders, 3 unsupported: .bin, .png)``; ``0`` when none."""
    total = sum(item.files for item in skipped)
    if not total:
        return "0"
    kinds: Counter[str] = Counter()
    for item in skipped:
        kinds[_kind(item)] += item.files
    types = sorted(
        {i.reason.removeprefix(_UNSUPPORTED) for i in skipped if _kind(i) == "unsupported"}
    )
    parts = [
        f"{count} {kind}" + (f": {', '.join(types)}" if kind == "unsupported" else "")
        for kind, count in sorted(kinds.items(), key=lambda item: (-item[1], item[0]))
    ]
    return f"{total} ({', '.join(parts)})"


def skipped_lines(skipped: Sequence[Skipped]) -> list[str]:
    """A line per skipped file a person can act on, one per hidden folder."""
    return [
        f"  skipped {item.path}/ ({item.reason}, {item.files} files)"
        if item.reason == HIDDEN_FOLDER
        else f"  skipped {item.path}: {item.reason}"
        for item in skipped
        if not hidden(item) or item.reason == HIDDEN_FOLDER
    ]
