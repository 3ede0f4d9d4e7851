"""A number from the wrong row of a cited table is flagged; from the right row, or with both
rows named, it is not."""

from __future__ import annotations

import pytest

from rag.check.citations import check
from rag.check.table_rows import table_rows
from tests.rag.factories import make_hit

PRICES = (
    "各级别价格如下：\n\n| 级别 | 课程费（单独报读） | 教材费 |\n| --- | --- | --- |\n"
    "| 入门级 | 3600 元 | 280 元 |\n| 流利级 | 4800 元 | 280 元 |\n| 商务级 | 5600 元 | 280 元 |\n"
)
HOTELS = (
    "| City tier | Limit per night |\n| --- | --- |\n| Beijing, Shanghai | 600 CNY |\n"
    "| Other provincial capitals | 450 CNY |\n"
)


def problems(answer: str, source: str) -> list[tuple[str, str]]:
    return [(p.kind, p.message) for p in check(answer, [make_hit(source)], question="?").problems]


def test_a_price_from_another_row_is_misattributed_and_the_row_is_named() -> None:
    [(kind, message)] = problems("单独报读流利级的课程费为 5600 元[1]。", PRICES)
    assert kind == "misattributed_number"
    assert (
        message
        == "「5600 元」在所引资料 [1] 的表格里是「商务级」那一行的，回答却把它用在「流利级」上"
    )
    [(kind, message)] = problems("Other provincial capitals allow 600 CNY a night [1].", HOTELS)
    assert kind == "misattributed_number"
    assert "“Beijing, Shanghai”" in message


@pytest.mark.parametrize(
    "answer",
    [
        "单独报读流利级的课程费为 4800 元[1]。",
        "流利级 4800 元，商务级 5600 元[1]。",  # both rows named
        "流利级的教材费为 280 元[1]。",  # the same in every row
        "课程费最高为 5600 元[1]。",  # no row named
    ],
)
def test_a_number_from_the_named_row_or_from_no_named_row_passes(answer: str) -> None:
    assert problems(answer, PRICES) == []


def test_only_body_rows_of_markdown_tables_are_read() -> None:
    [rows] = table_rows(PRICES)
    assert [row.label for row in rows] == ["入门级", "流利级", "商务级"]
    assert table_rows("| not a table |\nno separator") == ()
