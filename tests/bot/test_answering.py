"""The platform-neutral answering core: cutting, and the replies a platform is asked to show."""

from __future__ import annotations

import pytest

from bot.answering import cut


def test_cut_reports_whether_it_cut() -> None:
    assert cut("abc", 5) == ("abc", False)
    assert cut("a" * 10, 4) == ("aaaa", True)
    assert cut("  abc \n", 5) == ("abc", False)
    with pytest.raises(ValueError, match=r"limit \(0\)"):
        cut("a", 0)
