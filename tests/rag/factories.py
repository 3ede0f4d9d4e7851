"""Small builders for answer-core tests: hits over realistic policy text."""

from __future__ import annotations

from rag.chunks import Chunk
from rag.results import Hit


def make_hit(
    text: str,
    *,
    source: str = "policies/refund.md",
    heading: tuple[str, ...] = ("退费政策",),
    score: float = 0.8,
    n: int = 0,
) -> Hit:
    return Hit(Chunk(source=source, text=text, n=n, heading=heading), score=score)


REFUND_TEXT = (
    "退费按剩余课时计算。流利级原价 4800 元，共 16 课时。"
    "退费时收取退款金额 5% 的手续费，最低 50 元。"
)
LEVELS_TEXT = (
    "口语课共分四个级别：入门级、进阶级、高阶级、流利级。每个级别 16 课时，每课时 45 分钟。"
)
LEAVE_TEXT = (
    "Full-time employees receive 20 days of paid annual leave per year. "
    "Unused leave expires on 31 March of the following year. "
    "Requests go to your line manager at least two weeks ahead."
)

LISTEN_BLOCK = "```yaml\napisix:\n  node_listen:\n    - 9080\n    - 9081\n```"
"""How technical documentation answers "how do I configure it": a fenced YAML block."""
LISTEN_FAQ = f"""## 如何让 APISIX 同时监听多个端口？

Apache APISIX 默认只监听 9080 端口。
在 `conf/config.yaml` 中修改 `node_listen`，让 APISIX 同时监听多个端口：

{LISTEN_BLOCK}
"""
LISTEN_QUESTION = "网关想同时监听 9080 和 9081 两个 http 端口，cfg 咋写"


def policy_hits() -> list[Hit]:
    return [
        make_hit(REFUND_TEXT, heading=("退费政策", "三、退费计算口径")),
        make_hit(LEVELS_TEXT, source="courses/levels.md", heading=("课程体系",), n=1),
        make_hit(LEAVE_TEXT, source="hr/leave.md", heading=("Annual leave",), n=2),
    ]
