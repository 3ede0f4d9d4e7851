"""Benchmark (not a test): a documentation folder of real size, as a new user points DOCS_DIR
at it — how soon the console answers, whether it says what it does, how fast ``rag ask`` is on
a folder already indexed, and how fast Ctrl-C stops an embedding command.

``make`` writes a synthetic folder (deterministic, seeded): ``--files`` Markdown pages of
``--sections`` sections each, every section a paragraph of generated Chinese and English policy
sentences, so the splitter cuts about 30 passages a page (1,200 pages -> ~36k passages, the size
of the documentation set of the issue). Three hidden files and two binary ones are added, so
the skipped counts can be checked.

``measure`` times, each in a fresh process as a user runs it (INDEX_DIR under /tmp):

1. console start on the new folder: seconds to the greeting, to the first progress line, to
   the first answer (a question piped in), and the stop (SIGINT) after ``--embed-seconds`` of
   background embedding: seconds to exit, the line that says what was kept, any traceback;
2. ``rag ask`` right after (vectors still missing: answered lexically), three times: the first
   run persists what the console did not, the next ones load it;
3. ``rag index`` stopped by SIGINT after ``--embed-seconds``, then run again: does it resume
   (the vectors it says it kept are not embedded again)?

Run: ``.venv/bin/python -m bench.bigfolder make /tmp/bigfolder-docs`` then
``.venv/bin/python -m bench.bigfolder measure /tmp/bigfolder-docs --index /tmp/bigfolder-index``.
The bundled e5 embeds only a few passages a second on 2 cores: full embedding of 36k passages
takes hours, so this measures the lexical phase and the interrupt, not the end of the backfill.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

_ZH = [
    "员工",
    "部门",
    "申请",
    "审批",
    "报销",
    "差旅",
    "合同",
    "费用",
    "预算",
    "流程",
    "系统",
    "账号",
    "权限",
    "网关",
    "插件",
    "路由",
    "证书",
    "配置",
    "日志",
    "监控",
    "告警",
    "备份",
    "恢复",
    "发布",
    "版本",
    "测试",
    "环境",
    "服务",
    "接口",
    "请求",
    "响应",
    "超时",
    "重试",
    "限流",
    "缓存",
    "数据库",
    "节点",
    "集群",
    "负载",
    "安全",
    "密码",
    "加密",
    "审计",
    "培训",
    "考勤",
    "假期",
    "年假",
    "病假",
    "工资",
    "福利",
    "保险",
]
_EN = [
    "employee",
    "team",
    "request",
    "approval",
    "expense",
    "travel",
    "contract",
    "budget",
    "process",
    "system",
    "account",
    "access",
    "gateway",
    "plugin",
    "route",
    "certificate",
    "config",
    "log",
    "monitor",
    "alert",
    "backup",
    "restore",
    "release",
    "version",
    "test",
    "service",
    "endpoint",
    "timeout",
    "retry",
    "limit",
    "cache",
    "database",
    "node",
    "cluster",
    "security",
    "password",
    "audit",
    "training",
    "leave",
    "salary",
    "benefit",
    "insurance",
    "policy",
    "manager",
    "review",
    "deadline",
]
_ZH_FRAMES = (
    "{a}的{b}需要在{n}个工作日内完成{c}。",
    "如果{a}没有{b}，{c}不能超过{n}次。",
    "每个{a}最多可以申请{n}次{b}，超过部分由{c}审批。",
    "{a}和{b}的默认{c}是{n}秒。",
)
_EN_FRAMES = (
    "The {a} {b} must be finished within {n} business days by the {c} owner.",
    "Each {a} may file up to {n} {b} requests before a {c} review is needed.",
    "A {a} without {b} cannot exceed {n} {c} attempts per day.",
    "The default {a} {b} is {n} seconds unless the {c} says otherwise.",
)


def _sentence(rng: random.Random, chinese: bool) -> str:
    words, frames = (_ZH, _ZH_FRAMES) if chinese else (_EN, _EN_FRAMES)
    a, b, c = rng.sample(words, 3)
    return rng.choice(frames).format(a=a, b=b, c=c, n=rng.randint(1, 999))


def _page(rng: random.Random, number: int, sections: int) -> str:
    chinese = number % 2 == 0
    lines = [f"# {'手册' if chinese else 'Handbook'} {number}", ""]
    for section in range(sections):
        lines += [f"## {rng.choice(_ZH if chinese else _EN)} {section}", ""]
        body = "" if chinese else " "
        lines += [body.join(_sentence(rng, chinese) for _ in range(rng.randint(5, 9))), ""]
    return "\n".join(lines)


def make(folder: Path, *, files: int, sections: int, seed: int = 29) -> None:
    rng = random.Random(seed)
    for number in range(files):
        path = folder / f"part-{number // 100:02d}" / f"page-{number:04d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_page(rng, number, sections), encoding="utf-8")
    for hidden in (".github/workflows/ci.md", ".github/README.md", ".notes.md"):
        (folder / hidden).parent.mkdir(parents=True, exist_ok=True)
        (folder / hidden).write_text("# hidden\n\nnot a page\n", encoding="utf-8")
    (folder / "logo.png").write_bytes(bytes(range(256)) * 4)
    (folder / "part-00" / "diagram.bin").write_bytes(b"\x00\x01" * 512)
    print(f"wrote {files} pages ({sections} sections each) and 5 odd files under {folder}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    made = commands.add_parser("make", help="write the synthetic folder")
    made.add_argument("folder", type=Path)
    made.add_argument("--files", type=int, default=1200)
    made.add_argument("--sections", type=int, default=23)
    args = parser.parse_args()
    if args.command == "make":
        make(args.folder, files=args.files, sections=args.sections)


if __name__ == "__main__":
    main()
