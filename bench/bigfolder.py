"""Benchmark (not a test): a documentation folder of real size, as a new user points DOCS_DIR
at it — how soon the console answers, whether it says what it does, how fast ``rag ask`` is on
a folder already indexed, and how fast Ctrl-C stops an embedding command.

``make`` writes a synthetic folder (deterministic, seeded): ``--files`` Markdown pages of
``--sections`` sections each, every section a paragraph of generated Chinese and English policy
sentences, so the splitter cuts about 30 passages a page (1,200 pages -> ~36k passages, the size
of the documentation set of the issue). Three hidden files and two binary ones are added, so
the skipped counts can be checked.

``measure`` times, each in a fresh process as a user runs it (INDEX_DIR under /tmp):

1. console start on the new folder: seconds to the greeting, to the first progress line (any
   stage: reading, splitting, counting terms, embedding), to the first answer (a question piped
   in), and the stop (SIGINT) after ``--embed-seconds`` of background embedding: seconds to
   exit, the line that says what was kept, any traceback;
2. ``rag ask`` right after (vectors still missing: answered lexically), ``--runs`` times: the
   first run persists what the console did not, the median of the others is what a user
   waits; then once under ``-X importtime`` (the seconds of imports, by package);
3. ``rag ask`` and ``rag index`` on a new INDEX_DIR: seconds to their first progress line;
4. ``rag index`` stopped by SIGINT after ``--embed-seconds``, then run again: does it resume
   (the vectors it says it kept are not embedded again)?

Run: ``.venv/bin/python -m bench.bigfolder make /tmp/bigfolder-docs`` then
``.venv/bin/python -m bench.bigfolder measure /tmp/bigfolder-docs --index /tmp/bigfolder-index``.
``--root DIR`` runs another checkout's code (e.g. ``git archive`` of an older commit) with this
interpreter, for before/after figures; ``--only ask`` (``console``) measures that alone.
The bundled e5 embeds only a few passages a second on 2 cores: full embedding of 36k passages
takes hours, so this measures the lexical phase and the interrupt, not the end of the backfill.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import IO

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


QUESTION = "员工的报销需要几个工作日完成？"
"""Asked of every folder: over an English one it is a refusal, answered as fast."""
PLATFORM_SETTINGS = ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "FEISHU_APP_ID", "REDIS_URL")
PROGRESS = "(reading|splitting|counting terms|embedding): [0-9,]+ of "
"""A progress line of any stage (before issue 29's last changes only ``embedding:`` existed)."""
ROOT: Path | None = None
"""``--root``: the checkout whose code runs (``None``: this one)."""


class Watched:
    """A command run as a user runs it, each line of its output stamped with when it came."""

    def __init__(self, command: list[str], env: dict[str, str], *, stdin: bool = False) -> None:
        self.started = time.monotonic()
        self.lines: list[tuple[float, str, str]] = []
        self.process = subprocess.Popen(
            command,
            env=env,
            cwd=_cwd(),
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, stream in (("out", self.process.stdout), ("err", self.process.stderr)):
            threading.Thread(target=self._read, args=(name, stream), daemon=True).start()

    def _read(self, name: str, stream: IO[str] | None) -> None:
        for line in stream or ():
            self.lines.append((time.monotonic() - self.started, name, line.rstrip("\n")))

    def first(self, pattern: str, *, timeout: float) -> float | None:
        """Seconds from the start to the first line containing ``pattern`` (a regex)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            exited = self.process.poll() is not None
            if exited:
                time.sleep(0.2)  # its last lines may still be on their way
            for at, _, line in list(self.lines):
                if re.search(pattern, line):
                    return at
            if exited:
                return None
            time.sleep(0.05)
        return None

    def answered(self, *, timeout: float) -> float | None:
        """Seconds to the first line on stdout after the greeting (an answer or a refusal)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            out = [at for at, name, _ in list(self.lines) if name == "out"]
            if len(out) >= 2:
                return out[1]
            time.sleep(0.05)
        return None

    def stop(self, *, timeout: float = 120) -> float:
        """SIGINT, then seconds until the process exited."""
        sent = time.monotonic()
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
        return time.monotonic() - sent

    def text(self) -> str:
        return "\n".join(line for _, _, line in self.lines)


def _env(docs: Path, index: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in PLATFORM_SETTINGS}
    if ROOT is not None:
        env["PYTHONPATH"] = str(ROOT)
    return env | {"DOCS_DIR": str(docs), "INDEX_DIR": str(index), **extra}


def _cwd() -> str | None:
    """``--root``'s checkout as the working directory too: ``python -m`` looks there first."""
    return None if ROOT is None else str(ROOT)


def _show(name: str, value: float | None) -> None:
    print(f"  {name}: {'-' if value is None else f'{value:.1f} s'}")


def _stopped(watched: Watched, embed_seconds: float) -> None:
    """Let it embed, stop it, and say how the stop went."""
    _show("first progress line (any stage)", watched.first(PROGRESS, timeout=600))
    _show("first embedding line", watched.first("embedding:", timeout=600))
    time.sleep(embed_seconds)
    _show("exit after SIGINT", watched.stop())
    kept = [line for _, _, line in watched.lines if "kept " in line]
    print(f"  said: {kept[-1] if kept else '(nothing kept said)'}")
    print(f"  traceback: {'yes' if 'Traceback' in watched.text() else 'none'}")


def measure_console(docs: Path, index: Path, embed_seconds: float) -> None:
    print(f"console (python -m bot) on {docs}, new INDEX_DIR {index}:")
    shutil.rmtree(index, ignore_errors=True)
    console = Watched([sys.executable, "-m", "bot"], _env(docs, index), stdin=True)
    assert console.process.stdin is not None
    console.process.stdin.write(QUESTION + "\n")
    console.process.stdin.flush()  # kept open: the chat goes on while it embeds
    _show("first line", console.first("", timeout=600))
    _show("greeting", console.first("Ctrl-D to quit", timeout=600))
    _show("first answer", console.answered(timeout=600))
    mode = [line for _, _, line in console.lines if "mode:" in line]
    print(f"  said: {mode[0] if mode else '(no mode line)'}")
    _stopped(console, embed_seconds)


def measure_ask(docs: Path, index: Path, runs: int, **env: str) -> None:
    label = ", ".join(f"{k}={v}" for k, v in env.items()) or "EMBEDDINGS=e5"
    print(f"rag ask on {docs} ({label}), INDEX_DIR {index}:")
    walls: list[float] = []
    cpus: list[float] = []
    for run in range(runs):
        started = time.monotonic()
        cpu = _children_cpu()
        done = subprocess.run(
            [sys.executable, "-m", "rag", "ask", QUESTION],
            env=_env(docs, index, **env),
            capture_output=True,
            text=True,
            check=False,
            cwd=_cwd(),
        )
        seconds, cpu = time.monotonic() - started, _children_cpu() - cpu
        if run:  # the first run may still store what an earlier command did not
            walls.append(seconds)
            cpus.append(cpu)
        note = "lexical note" if "answered from the lexical index" in done.stderr else ""
        verdict = re.findall(r"verdict: (\w+)", done.stdout)
        print(
            f"  run {run + 1}: {seconds:.2f} s, {cpu:.2f} s CPU (exit {done.returncode}, "
            f"{verdict[0] if verdict else '-'}) {note}"
        )
    if walls:
        print(
            f"  median of runs 2-{runs}: {statistics.median(walls):.2f} s wall, "
            f"{statistics.median(cpus):.2f} s CPU"
        )
    measure_imports(docs, index, **env)


def measure_imports(docs: Path, index: Path, **env: str) -> None:
    """One more ``rag ask`` under ``-X importtime``: the imports' own seconds, by package."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "rag", "ask", QUESTION],
        env=_env(docs, index, **env),
        capture_output=True,
        text=True,
        check=False,
        cwd=_cwd(),
    )
    packages: Counter[str] = Counter()
    for line in done.stderr.splitlines():
        found = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
        if found:
            packages[found.group(2).split(".")[0]] += int(found.group(1))
    top = ", ".join(f"{name} {us / 1e6:.2f}" for name, us in packages.most_common(6))
    print(f"  -X importtime: {sum(packages.values()) / 1e6:.2f} s of imports ({top})")


def measure_new_folder(docs: Path, index: Path) -> None:
    """Seconds to the first progress line of ``rag ask`` and ``rag index`` on a new INDEX_DIR
    (then stopped: what comes after is measured above)."""
    print(f"first progress line on a new INDEX_DIR, {docs}:")
    for command in (["ask", QUESTION], ["index"]):
        shutil.rmtree(index, ignore_errors=True)
        watched = Watched([sys.executable, "-m", "rag", *command], _env(docs, index))
        _show(f"rag {command[0]}", watched.first(PROGRESS, timeout=600))
        _show(f"rag {command[0]}: exit after SIGINT", watched.stop())
        print(f"  traceback: {'yes' if 'Traceback' in watched.text() else 'none'}")
    shutil.rmtree(index, ignore_errors=True)


def _children_cpu() -> float:
    """User + system seconds of the finished child processes (what an idle machine's wall
    time would be for a one-thread command)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure_summary(docs: Path, index: Path) -> None:
    """``rag index``'s summary lines (EMBEDDINGS=none: nothing to wait for)."""
    done = subprocess.run(
        [sys.executable, "-m", "rag", "index"],
        env=_env(docs, index, EMBEDDINGS="none"),
        capture_output=True,
        text=True,
        check=False,
        cwd=_cwd(),
    )
    print("rag index summary (EMBEDDINGS=none):")
    print("\n".join(f"  {line}" for line in done.stdout.splitlines()[:4]))


def measure_index(docs: Path, index: Path, embed_seconds: float) -> None:
    print(f"rag index on {docs}, INDEX_DIR {index}, stopped twice:")
    for attempt in (1, 2):
        watched = Watched([sys.executable, "-m", "rag", "index"], _env(docs, index))
        _stopped(watched, embed_seconds)
        totals = [line for _, _, line in watched.lines if line.startswith("embedding:")]
        print(f"  run {attempt} first progress: {totals[0] if totals else '-'}")
        skipped = [line for _, _, line in watched.lines if "skipped" in line]
        print(f"  run {attempt} skipped: {skipped[:1]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    made = commands.add_parser("make", help="write the synthetic folder")
    made.add_argument("folder", type=Path)
    made.add_argument("--files", type=int, default=1200)
    made.add_argument("--sections", type=int, default=23)
    measured = commands.add_parser("measure", help="time the console, rag ask, rag index")
    measured.add_argument("folder", type=Path)
    measured.add_argument("--index", type=Path, default=Path("/tmp/bigfolder-index"))
    measured.add_argument("--embed-seconds", type=float, default=20.0)
    measured.add_argument("--runs", type=int, default=5)
    measured.add_argument("--root", type=Path, help="run another checkout's code")
    measured.add_argument(
        "--only", choices=["ask", "console"], help="measure rag ask (or the console) alone"
    )
    args = parser.parse_args()
    if args.command == "make":
        make(args.folder, files=args.files, sections=args.sections)
        return
    global ROOT
    ROOT = None if args.root is None else args.root.resolve()
    if args.only == "ask":
        measure_ask(args.folder, args.index, args.runs)
        return
    if args.only == "console":
        measure_console(args.folder, args.index, args.embed_seconds)
        return
    measure_console(args.folder, args.index, args.embed_seconds)
    measure_ask(args.folder, args.index, args.runs)
    lexical_only = args.index.with_name(args.index.name + "-none")
    measure_ask(args.folder, lexical_only, args.runs, EMBEDDINGS="none")
    measure_summary(args.folder, lexical_only)
    measure_new_folder(args.folder, args.index.with_name(args.index.name + "-new"))
    measure_index(args.folder, args.index, args.embed_seconds)


if __name__ == "__main__":
    main()
