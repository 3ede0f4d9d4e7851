"""Chinese questions that quote English error messages, code and identifiers: 20 frames a
Chinese asker writes, each around 5 of 20 messages as they are pasted (in backticks, quotes,
Chinese quotes, or bare), 100 questions in all. Written for the tests, from no document."""

from __future__ import annotations

FRAMES = (
    "启动的时候一直报 {e}，是哪里配错了？",
    "升级以后日志里出现 {e} 这个错误，怎么解决",
    "为什么会报 {e}？",
    "部署到测试环境后请求返回 {e}，要改哪个配置",
    "{e} 这个报错是什么意思",
    "跑 make deps 时卡住然后提示 {e}，有镜像源吗",
    "我们的网关偶尔出现 {e}，是不是超时设太短了",
    "按文档配好了插件还是报 {e}，帮忙看下",
    "重启以后报 {e}，之前一直正常",
    "提示 {e} 要怎么排查",
    "在 k8s 里跑报错 {e}，需要给什么权限",
    "日志一直刷 {e}，会影响性能吗",
    "配置热加载失败：{e}，是不是格式不对",
    "调用管理接口时返回 {e}，密钥在哪里改",
    "出现 {e} 以后服务就挂了，怎么自动恢复",
    "客户那边反馈说看到 {e}，我们这边该查哪个日志",
    "新装的环境报 {e}，依赖版本有要求吗",
    "同样的配置在另一台机器上不报 {e}，差别在哪",
    "这个 {e} 错误和证书有关系吗？",
    "文档里有没有写遇到 {e} 怎么处理",
)

ERRORS = (
    '"failed to fetch data from etcd cluster, connection refused"',
    "`nginx: [emerg] bind() to 0.0.0.0:9080 failed (98: Address already in use)`",
    "ModuleNotFoundError: No module named 'yaml'",
    "“upstream timed out (110: Connection timed out) while reading response header from upstream”",
    "'permission denied while trying to connect to the Docker daemon socket'",
    "Error: connect ECONNREFUSED 127.0.0.1:2379",
    "`module 'resty.worker.events' not found`",
    '"SSL_do_handshake() failed (SSL: error:14094410:SSL routines:ssl3_read_bytes:sslv3 alert '
    'handshake failure)"',
    "java.lang.OutOfMemoryError: Java heap space",
    "「invalid configuration: the schema of plugin limit-count is invalid」",
    "failed to check item data of [/apisix/routes] err:additional properties forbidden",
    '`{"error_msg":"failed to match any routes"}`',
    "ECONNRESET socket hang up",
    '"x509: certificate signed by unknown authority"',
    "[error] 23#23: *1 lua entry thread aborted: runtime error: attempt to index nil value",
    "`Error response from daemon: Conflict. The container name is already in use`",
    "'401 Unauthorized: invalid api key'",
    "panic: runtime error: invalid memory address or nil pointer dereference",
    '"too many open files" (errno 24)',
    "`fatal: unable to access repository: Could not resolve host`",
)


def mixed_questions() -> list[str]:
    """Frame ``i`` with errors ``i``, ``i+4``, ``i+8``, ``i+12`` and ``i+16`` (mod 20): every
    frame and every error five times."""
    return [
        frame.format(e=ERRORS[(i + step) % len(ERRORS)])
        for i, frame in enumerate(FRAMES)
        for step in (0, 4, 8, 12, 16)
    ]
